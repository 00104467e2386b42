// Transport names, same-host socket naming and this host's address: see transport.h.
#include "rpc/transport.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <unistd.h>

namespace deltameta {

const char* TransportName(Transport t) {
  switch (t) {
    case Transport::kShm:
      return "shm";
    case Transport::kUnix:
      return "unix";
    case Transport::kTcp:
      return "tcp";
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

bool HostAddress(std::string* ip, std::string* error) {
  char name[256] = {0};
  gethostname(name, sizeof(name) - 1);
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* found = nullptr;
  int rc = getaddrinfo(name, nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    *error = std::string("host name ") + name + " has no IPv4 address (" + gai_strerror(rc) +
             "): give --rpc_ip an address of this host";
    return false;
  }
  char text[INET_ADDRSTRLEN] = {0};
  inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, text, sizeof(text));
  freeaddrinfo(found);
  *ip = text;
  return true;
}

}  // namespace deltameta
