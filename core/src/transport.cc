// Same-host transport naming: see transport.h.
#include "deltameta/transport.h"

namespace deltameta {

std::string LocalSocketName(const std::string& host, uint16_t port) {
  return std::string(1, '\0') + "deltameta:" + host + ":" + std::to_string(port);
}

}  // namespace deltameta
