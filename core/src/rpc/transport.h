// Same-host transports. Next to every TCP listener a server also listens on a Linux
// abstract Unix socket named after the TCP address, so that a client in the same network
// namespace can reach it without the TCP/IP stack (one in another namespace, or on another
// host, cannot see the name and uses TCP). Over that socket a client may in turn ask for a
// shared-memory channel (shm_channel.h), which carries its calls without socket buffers.
#pragma once

#include <cstdint>
#include <string>

namespace deltameta {

// The fastest transport a client may use, in order of preference.
enum class Transport {
  kShm,   // same-host servers over shared memory, others over TCP
  kUnix,  // same-host servers over Unix sockets, others over TCP
  kTcp,   // always TCP
};
// "shm", "unix" or "tcp".
const char* TransportName(Transport t);
// Parses a name TransportName returns; false if it is none of them.
bool ParseTransport(const std::string& name, Transport* t);

// The abstract socket name (leading NUL byte included) of the listener at host:port.
std::string LocalSocketName(const std::string& host, uint16_t port);

// The IPv4 address this host's name resolves to (what `--rpc_ip=host` listens on: on a
// cluster, the address other hosts reach this one at). False with *error if it has none.
bool HostAddress(std::string* ip, std::string* error);

}  // namespace deltameta
