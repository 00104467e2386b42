// The ping-pong's UDP server and caller: see udp_pingpong.h.
#include "pingpong/udp_pingpong.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include "format/wire.h"
#include "pingpong/ping_handler.h"

namespace deltameta {
namespace {

constexpr int kPollMs = 200;  // the original's poll interval

sockaddr_in Loopback(uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

}  // namespace

bool UdpEchoServer::Bind(std::string* error) {
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in a = Loopback(0);
  socklen_t len = sizeof(a);
  if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    *error = std::string("cannot bind a UDP socket on 127.0.0.1: ") + std::strerror(errno);
    return false;
  }
  port_ = ntohs(a.sin_port);
  return true;
}

void UdpEchoServer::Serve(int threads, const std::atomic<bool>& stop) {
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; i++) pool.emplace_back([this, &stop] { Loop(stop); });
  for (auto& t : pool) t.join();
}

void UdpEchoServer::Loop(const std::atomic<bool>& stop) {
  char in[2048];
  std::string reply;
  pollfd p{fd_, POLLIN, 0};
  while (!stop.load(std::memory_order_relaxed)) {
    sockaddr_in from{};
    socklen_t len = sizeof(from);
    ssize_t got = recvfrom(fd_, in, sizeof(in), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&from), &len);
    if (got < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) poll(&p, 1, kPollMs);
      continue;
    }
    FrameHeader h;
    if (static_cast<size_t>(got) < kFrameHeaderBytes || ParseFrameHeader(in, &h) != HeaderError::kNone ||
        !PingHandler::Answer(h, &reply)) {
      continue;  // not a ping: dropped, as a malformed datagram would be
    }
    sendto(fd_, reply.data(), reply.size(), 0, reinterpret_cast<sockaddr*>(&from), len);
  }
}

UdpEchoServer::~UdpEchoServer() {
  if (fd_ >= 0) close(fd_);
}

bool UdpCaller::Connect(uint16_t port, std::string* error) {
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in a = Loopback(port);
  if (fd_ < 0 || connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    *error = "cannot connect a UDP socket to 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

bool UdpCaller::Call(std::string_view request, uint32_t seq, std::chrono::milliseconds timeout, std::string* error) {
  if (send(fd_, request.data(), request.size(), 0) != static_cast<ssize_t>(request.size())) {
    *error = std::string("UDP send failed: ") + std::strerror(errno);
    return false;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd p{fd_, POLLIN, 0};
  for (;;) {
    ssize_t got = recv(fd_, reply_, sizeof(reply_), MSG_DONTWAIT);
    if (got >= 0) {
      FrameHeader h;
      if (static_cast<size_t>(got) >= kFrameHeaderBytes && ParseFrameHeader(reply_, &h) == HeaderError::kNone &&
          h.type == MsgType::kStatReply && h.seq == seq &&
          h.body_bytes + kFrameHeaderBytes == static_cast<size_t>(got)) {
        return true;
      }
      continue;  // a late reply to an earlier call
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      *error = std::string("UDP receive failed: ") + std::strerror(errno);
      return false;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      *error = "no UDP reply within the timeout";
      return false;
    }
    poll(&p, 1, kPollMs);
  }
}

UdpCaller::~UdpCaller() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace deltameta
