// Same-host transport: next to every TCP listener a server also listens on a Linux
// abstract Unix socket named after the TCP address, so that a client in the same network
// namespace can reach it without the TCP/IP stack (and one in another namespace, or on
// another host, cannot see the name and uses TCP).
#pragma once

#include <cstdint>
#include <string>

namespace deltameta {

// The abstract socket name (leading NUL byte included) of the listener at host:port.
std::string LocalSocketName(const std::string& host, uint16_t port);

}  // namespace deltameta
