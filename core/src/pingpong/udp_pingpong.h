// The ping-pong's UDP transport (pingpong.h), in the pattern the original prototype's
// UDP RPC uses: a server's threads share one socket, each trying a non-blocking receive
// and polling the socket (200 ms at a time) when there is nothing; a client sends on a
// connected socket and waits for the reply the same way. Requests are frames (wire.h)
// answered with a stat reply of the same sequence number.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace deltameta {

class UdpEchoServer {
 public:
  // Binds a UDP socket to 127.0.0.1 on a free port; false with *error.
  bool Bind(std::string* error);
  uint16_t port() const { return port_; }
  // Serves on `threads` threads until `stop` is set (seen within 200 ms).
  void Serve(int threads, const std::atomic<bool>& stop);
  ~UdpEchoServer();

 private:
  void Loop(const std::atomic<bool>& stop);
  int fd_ = -1;
  uint16_t port_ = 0;
};

class UdpCaller {
 public:
  // A socket connected to 127.0.0.1:`port`; false with *error.
  bool Connect(uint16_t port, std::string* error);
  // Sends `request` (a frame with sequence number `seq`) and waits for its reply, at most
  // `timeout`; false with *error on timeout or a reply that is not the request's.
  bool Call(std::string_view request, uint32_t seq, std::chrono::milliseconds timeout, std::string* error);
  ~UdpCaller();

 private:
  int fd_ = -1;
  char reply_[2048];
};

}  // namespace deltameta
