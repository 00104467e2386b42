// A blocking RPC connection to one server: one request in flight, a reply awaited with a
// deadline. Owned and used by a single thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "deltameta/wire.h"

namespace deltameta {

// Splits "tcp://host:port" or "host:port". False with *error if malformed.
bool ParseAddress(const std::string& uri, std::string* host, uint16_t* port, std::string* error);

class RpcClient {
 public:
  // Connects to `address`, retrying while the server refuses, for at most `timeout`; the
  // same timeout bounds every later call. With `allow_local`, a server in the same network
  // namespace is reached over its same-host socket (transport.h) instead of TCP.
  // nullptr with *error naming the address on failure.
  static std::unique_ptr<RpcClient> Connect(const std::string& address, std::chrono::milliseconds timeout,
                                            bool allow_local, std::string* error);
  ~RpcClient();

  // Sends `request` (one complete frame) and waits for its reply, which must be of
  // `reply_type` and carry the request's sequence number. *body views the reply body and
  // stays valid until the next call. False with *error on timeout, disconnect or bad reply.
  bool Call(const std::string& request, MsgType reply_type, std::string_view* body, std::string* error);

  uint32_t NextSeq() { return ++seq_; }
  const std::string& address() const { return address_; }
  // "unix" (same host) or "tcp".
  const char* transport() const { return local_ ? "unix" : "tcp"; }

 private:
  RpcClient(int fd, std::string address, std::chrono::milliseconds timeout, bool local)
      : fd_(fd), address_(std::move(address)), timeout_(timeout), local_(local) {}
  static constexpr size_t kReplyBuffer = 4096;
  // Receives into buffer_ (already holding *got bytes) until it holds at least `want`.
  bool ReceiveAtLeast(size_t want, size_t* got, std::string* error);

  int fd_;
  std::string address_;
  std::chrono::milliseconds timeout_;
  bool local_;
  std::string buffer_;
  uint32_t seq_ = 0;
};

}  // namespace deltameta
