// Blocking RPC client over TCP, Unix sockets or shared memory: see rpc_client.h.
#include "rpc/rpc_client.h"

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
#include <vector>

#include "format/byte_order.h"
#include "rpc/secret.h"
#include "rpc/transport.h"
#include "util/cpu_placement.h"

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
                                              Transport fastest, std::string* error) {
  std::string host;
  uint16_t port = 0;
  if (!ParseAddress(address, &host, &port, error)) return nullptr;
  const std::string secret_file = SecretFilePath(error);
  std::string secret;
  if (secret_file.empty() || !ReadSecret(secret_file, &secret, error)) return nullptr;
  timeval tv{static_cast<time_t>(timeout.count() / 1000), static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
  if (int fd = fastest != Transport::kTcp ? ConnectLocal(host, port) : -1; fd >= 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    auto client = std::unique_ptr<RpcClient>(new RpcClient(fd, address, timeout, Transport::kUnix));
    if (!client->Hello(secret, secret_file, error)) return nullptr;
    if (fastest == Transport::kShm && !client->AttachShm(error)) return nullptr;
    return client;
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
  auto client = std::unique_ptr<RpcClient>(new RpcClient(fd, address, timeout, Transport::kTcp));
  if (!client->Hello(secret, secret_file, error)) return nullptr;
  return client;
}

bool RpcClient::Hello(const std::string& secret, const std::string& secret_file, std::string* error) {
  std::string request;
  EncodeHello(secret, NextSeq(), &request);
  std::string_view frame;
  if (!Send(request, error) || !ReceiveFrame(&frame, nullptr, error) ||
      !CheckReply(frame, request, MsgType::kHelloReply, error)) {
    return false;
  }
  OpStatus status = OpStatus::kIoError;
  if (!DecodeHelloReply(frame.substr(kFrameHeaderBytes), &status)) {
    *error = "bad reply from server " + address_ + ": malformed hello reply";
    return false;
  }
  if (status != OpStatus::kOk) {
    *error = "server at " + address_ + " refused the secret in " + secret_file +
             ": the server runs as another user or with another " + kSecretFileEnv;
    return false;
  }
  return true;
}

RpcClient::~RpcClient() { close(fd_); }

bool RpcClient::AttachShm(std::string* error) {
  std::string request;
  EncodeAttachShm(PinnedCpu(), NextSeq(), &request);
  std::string_view frame;
  std::vector<int> fds;
  if (!Send(request, error) || !ReceiveFrame(&frame, &fds, error) ||
      !CheckReply(frame, request, MsgType::kAttachShmReply, error)) {
    for (int fd : fds) close(fd);
    return false;
  }
  OpStatus status = OpStatus::kIoError;
  const bool valid = DecodeAttachShmReply(frame.substr(kFrameHeaderBytes), &status);
  if (valid && status == OpStatus::kUnsupported && fds.empty()) return true;
  std::string why = "malformed reply";
  if (valid && status == OpStatus::kOk && fds.size() == 2) {
    int channel_fd = fds[0], doorbell_fd = fds[1];
    fds.clear();
    channel_ = ShmChannel::Open(channel_fd, &why);
    doorbell_ = channel_ ? ShmDoorbell::Open(doorbell_fd, &why) : nullptr;
    if (!channel_) close(doorbell_fd);
    if (doorbell_) {
      transport_ = Transport::kShm;
      return true;
    }
  }
  for (int fd : fds) close(fd);
  channel_.reset();
  *error = "server " + address_ + " offered an unusable shared-memory channel: " + why;
  return false;
}

bool RpcClient::Send(const std::string& request, std::string* error) {
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
  return true;
}

bool RpcClient::ReceiveAtLeast(size_t want, size_t* got, std::vector<int>* fds, std::string* error) {
  while (*got < want) {
    alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))];
    iovec iov{&buffer_[*got], buffer_.size() - *got};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    ssize_t n = recvmsg(fd_, &msg, MSG_CMSG_CLOEXEC);
    if (n > 0) {
      for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++) {
          int fd;
          std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
          if (fds != nullptr)
            fds->push_back(fd);
          else
            close(fd);
        }
      }
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

bool RpcClient::ReceiveFrame(std::string_view* frame, std::vector<int>* fds, std::string* error) {
  // Usually the whole reply arrives in the first receive.
  if (buffer_.size() < kReplyBuffer) buffer_.resize(kReplyBuffer);
  size_t got = 0;
  if (!ReceiveAtLeast(kFrameHeaderBytes, &got, fds, error)) return false;
  FrameHeader h;
  if (ParseFrameHeader(buffer_.data(), &h) == HeaderError::kNone) {
    const size_t want = kFrameHeaderBytes + h.body_bytes;
    if (got > want) {
      *error = "bad reply from server " + address_ + ": more bytes than one frame";
      return false;
    }
    if (buffer_.size() < want) buffer_.resize(want);
    if (!ReceiveAtLeast(want, &got, fds, error)) return false;
  }
  *frame = std::string_view(buffer_.data(), got);  // a bad header is CheckReply's to name
  return true;
}

bool RpcClient::AwaitShmReply(std::string_view* frame, std::string* error) {
  // Sleep in slices, to notice a server that died (its socket end closes) long before
  // the deadline.
  constexpr std::chrono::milliseconds kSlice(100);
  const auto deadline = Clock::now() + timeout_;
  for (;;) {
    switch (channel_->AwaitReply(std::min(kSlice, timeout_))) {
      case ShmChannel::Wait::kReply: {
        FrameHeader h;
        const char* slot = channel_->reply_slot();
        size_t bytes =
            ParseFrameHeader(slot, &h) == HeaderError::kNone ? kFrameHeaderBytes + h.body_bytes : kFrameHeaderBytes;
        *frame = std::string_view(slot, bytes);
        return true;
      }
      case ShmChannel::Wait::kDropped:
        *error = "server " + address_ + " dropped the shared-memory channel (see its log)";
        return false;
      case ShmChannel::Wait::kTimeout:
        break;
    }
    pollfd p{fd_, POLLRDHUP, 0};
    if (poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) {
      *error = "server " + address_ + " closed the connection";
      return false;
    }
    if (Clock::now() >= deadline) {
      *error = "no reply from server " + address_ + " within " + std::to_string(timeout_.count() / 1000) + " s";
      return false;
    }
  }
}

bool RpcClient::CheckReply(std::string_view frame, const std::string& request, MsgType reply_type, std::string* error) {
  FrameHeader h;
  HeaderError he = ParseFrameHeader(frame.data(), &h);
  if (he != HeaderError::kNone) {
    *error = "bad reply from server " + address_ + ": " + HeaderErrorName(he);
    return false;
  }
  if (h.type != reply_type || h.seq != LoadLE<uint32_t>(request.data() + 8) ||
      frame.size() != kFrameHeaderBytes + h.body_bytes) {
    *error = "bad reply from server " + address_ + ": unexpected message type, sequence number or length";
    return false;
  }
  return true;
}

bool RpcClient::Call(const std::string& request, MsgType reply_type, std::string_view* body, std::string* error) {
  std::string_view frame;
  if (channel_) {
    if (request.size() > ShmChannel::kSlotBytes) {
      *error = "request to server " + address_ + " larger than a frame may be";
      return false;
    }
    channel_->PostRequest(request);
    doorbell_->Ring();
    if (!AwaitShmReply(&frame, error)) return false;
  } else if (!Send(request, error) || !ReceiveFrame(&frame, nullptr, error)) {
    return false;
  }
  if (!CheckReply(frame, request, reply_type, error)) return false;
  *body = frame.substr(kFrameHeaderBytes);
  return true;
}

}  // namespace deltameta
