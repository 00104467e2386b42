// Blocking RPC client over TCP: see rpc_client.h.
#include "deltameta/rpc_client.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <thread>

#include "deltameta/byte_order.h"
#include "deltameta/transport.h"

namespace deltameta {
namespace {

using Clock = std::chrono::steady_clock;

// One non-blocking connect attempt bounded by `wait`. Returns the fd, or -1 with errno set.
int ConnectOnce(const addrinfo* ai, std::chrono::milliseconds wait) {
  int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
  if (fd < 0) return -1;
  if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
    if (errno != EINPROGRESS) {
      int e = errno;
      close(fd);
      errno = e;
      return -1;
    }
    pollfd p{fd, POLLOUT, 0};
    int ready = poll(&p, 1, static_cast<int>(wait.count()));
    int err = ETIMEDOUT;
    socklen_t len = sizeof(err);
    if (ready == 1) getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      close(fd);
      errno = err;
      return -1;
    }
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

// Connects to the same-host socket of host:port; -1 if there is none in this namespace.
int ConnectLocal(const std::string& host, uint16_t port) {
  const std::string name = LocalSocketName(host, port);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (name.size() > sizeof(a.sun_path)) return -1;
  std::memcpy(a.sun_path, name.data(), name.size());
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&a),
                         static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size())) != 0) {
    close(fd);
    fd = -1;
  }
  return fd;
}

}  // namespace

bool ParseAddress(const std::string& uri, std::string* host, uint16_t* port, std::string* error) {
  std::string rest = uri.rfind("tcp://", 0) == 0 ? uri.substr(6) : uri;
  size_t colon = rest.rfind(':');
  char* end = nullptr;
  long p = colon == std::string::npos ? 0 : std::strtol(rest.c_str() + colon + 1, &end, 10);
  if (colon == std::string::npos || colon == 0 || end == nullptr || *end != '\0' || p <= 0 || p > 65535) {
    *error = "malformed address '" + uri + "': expected tcp://host:port";
    return false;
  }
  *host = rest.substr(0, colon);
  *port = static_cast<uint16_t>(p);
  return true;
}

std::unique_ptr<RpcClient> RpcClient::Connect(const std::string& address, std::chrono::milliseconds timeout,
                                              bool allow_local, std::string* error) {
  std::string host;
  uint16_t port = 0;
  if (!ParseAddress(address, &host, &port, error)) return nullptr;
  timeval tv{static_cast<time_t>(timeout.count() / 1000), static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
  if (int fd = allow_local ? ConnectLocal(host, port) : -1; fd >= 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    return std::unique_ptr<RpcClient>(new RpcClient(fd, address, timeout, true));
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int gai = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (gai != 0) {
    *error = "cannot resolve " + address + ": " + gai_strerror(gai);
    return nullptr;
  }
  const auto deadline = Clock::now() + timeout;
  int fd = -1, last_errno = ETIMEDOUT;
  while (fd < 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    fd = ConnectOnce(res, left);
    if (fd >= 0) break;
    last_errno = errno;
    if (last_errno != ECONNREFUSED && last_errno != ENETUNREACH && last_errno != EHOSTUNREACH) break;
    std::this_thread::sleep_for(std::min(std::chrono::milliseconds(100), left));
  }
  freeaddrinfo(res);
  if (fd < 0) {
    *error = "cannot connect to " + address + " within " + std::to_string(timeout.count() / 1000.0).substr(0, 4) +
             " s: " + std::strerror(last_errno) + " (is the server running and ready?)";
    return nullptr;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  return std::unique_ptr<RpcClient>(new RpcClient(fd, address, timeout, false));
}

RpcClient::~RpcClient() { close(fd_); }

bool RpcClient::ReceiveAtLeast(size_t want, size_t* got, std::string* error) {
  while (*got < want) {
    ssize_t n = recv(fd_, &buffer_[*got], buffer_.size() - *got, 0);
    if (n > 0) {
      *got += static_cast<size_t>(n);
    } else if (n == 0) {
      *error = "server " + address_ + " closed the connection";
      return false;
    } else if (errno != EINTR) {
      *error = errno == EAGAIN || errno == EWOULDBLOCK
                   ? "no reply from server " + address_ + " within " + std::to_string(timeout_.count() / 1000) + " s"
                   : "connection to server " + address_ + " failed: " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

bool RpcClient::Call(const std::string& request, MsgType reply_type, std::string_view* body, std::string* error) {
  const char* p = request.data();
  size_t left = request.size();
  while (left > 0) {
    ssize_t sent = send(fd_, p, left, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) {
      *error = "cannot send to server " + address_ + ": " + std::strerror(errno);
      return false;
    }
    p += sent;
    left -= static_cast<size_t>(sent);
  }
  // Usually the whole reply arrives in the first receive.
  if (buffer_.size() < kReplyBuffer) buffer_.resize(kReplyBuffer);
  size_t got = 0;
  if (!ReceiveAtLeast(kFrameHeaderBytes, &got, error)) return false;
  FrameHeader h;
  HeaderError he = ParseFrameHeader(buffer_.data(), &h);
  if (he != HeaderError::kNone) {
    *error = "bad reply from server " + address_ + ": " + HeaderErrorName(he);
    return false;
  }
  const size_t frame = kFrameHeaderBytes + h.body_bytes;
  if (h.type != reply_type || h.seq != LoadLE<uint32_t>(request.data() + 8) || got > frame) {
    *error = "bad reply from server " + address_ + ": unexpected message type, sequence number or length";
    return false;
  }
  if (buffer_.size() < frame) buffer_.resize(frame);
  if (!ReceiveAtLeast(frame, &got, error)) return false;
  *body = std::string_view(buffer_.data() + kFrameHeaderBytes, h.body_bytes);
  return true;
}

}  // namespace deltameta
