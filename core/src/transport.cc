// Transport names and same-host socket naming: see transport.h.
#include "deltameta/transport.h"

namespace deltameta {

const char* TransportName(Transport t) {
  switch (t) {
    case Transport::kShm: return "shm";
    case Transport::kUnix: return "unix";
    case Transport::kTcp: return "tcp";
  }
  return "unknown";
}

bool ParseTransport(const std::string& name, Transport* t) {
  for (Transport c : {Transport::kShm, Transport::kUnix, Transport::kTcp}) {
    if (name == TransportName(c)) {
      *t = c;
      return true;
    }
  }
  return false;
}

std::string LocalSocketName(const std::string& host, uint16_t port) {
  return std::string(1, '\0') + "deltameta:" + host + ":" + std::to_string(port);
}

}  // namespace deltameta
