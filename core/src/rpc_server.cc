// Event-loop RPC server: see rpc_server.h.
#include "deltameta/rpc_server.h"

#include <sys/socket.h>

#include <cstdio>
#include <cstring>
#include <type_traits>

#include "deltameta/shm_server.h"
#include "deltameta/transport.h"

#include <asio/steady_timer.hpp>
#include <asio/write.hpp>

namespace deltameta {
namespace {

// One client connection. It waits for readability (no speculative read), reads what has
// arrived, serves every complete frame in it and writes the replies at once; only a reply
// the socket cannot take whole waits for writability. Three system calls per request.
// A same-host connection may instead ask for a shared-memory channel (kAttachShm), which
// then carries its requests; the connection stays open until the client closes it.
template <typename Protocol>
class Connection : public std::enable_shared_from_this<Connection<Protocol>> {
 public:
  static constexpr bool kLocal = std::is_same_v<Protocol, asio::local::stream_protocol>;

  Connection(typename Protocol::socket socket, FrameHandler* handler, ShmServer* shm, const std::string& log_prefix)
      : socket_(std::move(socket)), handler_(handler), shm_(shm), log_prefix_(log_prefix) {
    asio::error_code ec;
    if constexpr (std::is_same_v<Protocol, asio::ip::tcp>) {
      auto ep = socket_.remote_endpoint(ec);
      peer_ = ec ? "unknown peer" : ep.address().to_string() + ":" + std::to_string(ep.port());
      socket_.set_option(asio::ip::tcp::no_delay(true), ec);
    } else {
      peer_ = "a local (Unix socket) peer";
    }
    socket_.non_blocking(true, ec);
    in_.resize(kInitialBuffer);
  }

  void WaitForRequest() {
    auto self = this->shared_from_this();
    socket_.async_wait(asio::socket_base::wait_read, [self](const asio::error_code& ec) {
      if (!ec) self->OnReadable();
    });
  }

 private:
  // Per-op frames are tens of bytes; larger ones (bulk commits) grow the buffer.
  static constexpr size_t kInitialBuffer = 1 << 10;

  void OnReadable() {
    if (in_.size() - filled_ < kInitialBuffer / 4) in_.resize(in_.size() * 2);
    asio::error_code ec;
    size_t n = socket_.read_some(asio::buffer(in_.data() + filled_, in_.size() - filled_), ec);
    if (ec == asio::error::would_block) return WaitForRequest();
    if (ec) {
      if (filled_ > 0) Log("connection closed in the middle of a frame");
      return;
    }
    filled_ += n;
    out_.clear();
    size_t pos = 0;
    while (filled_ - pos >= kFrameHeaderBytes) {
      FrameHeader h;
      HeaderError he = ParseFrameHeader(in_.data() + pos, &h);
      if (he != HeaderError::kNone) return Drop(HeaderErrorName(he));
      size_t frame = kFrameHeaderBytes + h.body_bytes;
      if (filled_ - pos < frame) {
        if (in_.size() < frame) in_.resize(frame);
        break;
      }
      if (h.type == MsgType::kAttachShm) {
        int client_cpu = -1;
        if (!DecodeAttachShm(std::string_view(in_.data() + pos + kFrameHeaderBytes, h.body_bytes), &client_cpu)) {
          return Drop("malformed request body");
        }
        if (!AttachShm(client_cpu, h.seq)) return;
        pos += frame;
        continue;
      }
      if (!handler_->Handle(h, std::string_view(in_.data() + pos + kFrameHeaderBytes, h.body_bytes), &reply_)) {
        return Drop("malformed request body");
      }
      out_ += reply_;
      pos += frame;
    }
    std::memmove(in_.data(), in_.data() + pos, filled_ - pos);
    filled_ -= pos;
    size_t written = out_.empty() ? 0 : socket_.write_some(asio::buffer(out_), ec);
    if (ec && ec != asio::error::would_block) return;
    if (written == out_.size()) return WaitForRequest();
    auto self = this->shared_from_this();
    asio::async_write(socket_, asio::buffer(out_.data() + written, out_.size() - written),
                      [self](const asio::error_code& wec, size_t) {
                        if (!wec) self->WaitForRequest();
                      });
  }

  // Answers an attach request: with a channel whose descriptors travel with the reply, or
  // kUnsupported (over TCP, a second attach, or no shared memory here). False if the
  // connection was dropped.
  bool AttachShm(int client_cpu, uint32_t seq) {
    std::string error = "only a same-host connection can share memory";
    if constexpr (kLocal) {
      if (lease_) error = "this connection has a channel already";
      if (shm_ != nullptr && !lease_ && (lease_ = shm_->Attach(peer_, client_cpu, &error))) {
        EncodeAttachShmReply(OpStatus::kOk, seq, &reply_);
        out_ += reply_;
        return SendWithDescriptors(lease_->channel_fd(), lease_->doorbell_fd());
      }
      Log(("no shared-memory channel (" + error + "); the peer goes on over the socket").c_str());
    }
    EncodeAttachShmReply(OpStatus::kUnsupported, seq, &reply_);
    out_ += reply_;
    return true;
  }

  // Sends out_ in one sendmsg() that carries the two descriptors; the client awaits this
  // reply, so the socket has room for it. False (connection dropped) if it cannot be sent whole.
  bool SendWithDescriptors(int first, int second) {
    const int fds[2] = {first, second};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(fds))] = {};
    iovec iov{out_.data(), out_.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(fds));
    std::memcpy(CMSG_DATA(c), fds, sizeof(fds));
    ssize_t sent = sendmsg(socket_.native_handle(), &msg, MSG_NOSIGNAL);
    if (sent != static_cast<ssize_t>(out_.size())) {
      Drop("cannot send the shared-memory channel");
      return false;
    }
    out_.clear();
    return true;
  }

  void Drop(const char* why) {
    Log((std::string("dropped connection: ") + why).c_str());
    asio::error_code ignored;
    socket_.close(ignored);
  }

  void Log(const char* what) {
    std::fprintf(stderr, "%s: %s from %s\n", log_prefix_.c_str(), what, peer_.c_str());
  }

  typename Protocol::socket socket_;
  FrameHandler* handler_;
  ShmServer* shm_;
  std::unique_ptr<ShmServer::Lease> lease_;  // the channel this connection set up, if any
  std::string log_prefix_;
  std::string peer_;
  std::vector<char> in_;
  size_t filled_ = 0;
  std::string reply_, out_;
};

}  // namespace

RpcServer::RpcServer(int threads, FrameHandler* handler, std::string log_prefix, const std::vector<int>& shm_loop_cpus)
    : handler_(handler),
      log_prefix_(std::move(log_prefix)),
      shm_(std::make_unique<ShmServer>(shm_loop_cpus.empty() ? std::vector<int>(static_cast<size_t>(threads), -1)
                                                             : shm_loop_cpus,
                                       handler, log_prefix_)) {
  for (int i = 0; i < threads; i++) {
    loops_.push_back(std::make_unique<asio::io_context>(1));
    guards_.push_back(asio::make_work_guard(*loops_.back()));
  }
  signals_ = std::make_unique<asio::signal_set>(*loops_[0], SIGINT, SIGTERM);
  signals_->async_wait([this](const asio::error_code& ec, int) {
    if (!ec) Stop();
  });
}

RpcServer::~RpcServer() {
  Stop();
  Wait();
}

uint16_t RpcServer::Listen(const std::string& ip, uint16_t port, std::string* error) {
  asio::error_code ec;
  auto address = asio::ip::make_address(ip, ec);
  if (ec) {
    *error = "malformed listen address '" + ip + "': " + ec.message();
    return 0;
  }
  auto acceptor = std::make_unique<asio::ip::tcp::acceptor>(*loops_[0]);
  asio::ip::tcp::endpoint ep(address, port);
  acceptor->open(ep.protocol(), ec);
  if (!ec) acceptor->set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor->bind(ep, ec);
  if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    *error = "cannot listen on " + ip + ":" + std::to_string(port) + ": " + ec.message();
    return 0;
  }
  uint16_t bound = acceptor->local_endpoint().port();
  tcp_acceptors_.push_back(std::move(acceptor));
  Accept<asio::ip::tcp>(tcp_acceptors_.back().get());

  // The same-host listener is an optimisation: without it clients simply use TCP.
  auto local = std::make_unique<asio::local::stream_protocol::acceptor>(*loops_[0]);
  asio::local::stream_protocol::endpoint local_ep(LocalSocketName(ip, bound));
  local->open(local_ep.protocol(), ec);
  if (!ec) local->bind(local_ep, ec);
  if (!ec) local->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    std::fprintf(stderr, "%s: no same-host listener for %s:%u (%s); clients use TCP\n", log_prefix_.c_str(),
                 ip.c_str(), bound, ec.message().c_str());
  } else {
    local_acceptors_.push_back(std::move(local));
    Accept<asio::local::stream_protocol>(local_acceptors_.back().get());
  }
  return bound;
}

template <typename Protocol>
void RpcServer::Accept(typename Protocol::acceptor* acceptor) {
  asio::io_context& loop = *loops_[next_loop_++ % loops_.size()];
  acceptor->async_accept(loop, [this, acceptor](const asio::error_code& ec, typename Protocol::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      ShmServer* shm = Connection<Protocol>::kLocal ? shm_.get() : nullptr;
      std::make_shared<Connection<Protocol>>(std::move(socket), handler_, shm, log_prefix_)->WaitForRequest();
      Accept<Protocol>(acceptor);
      return;
    }
    // Out of descriptors or similar: say so, and retry shortly instead of spinning.
    std::fprintf(stderr, "%s: accept failed: %s\n", log_prefix_.c_str(), ec.message().c_str());
    auto timer = std::make_shared<asio::steady_timer>(acceptor->get_executor(), std::chrono::milliseconds(100));
    timer->async_wait([this, acceptor, timer](const asio::error_code& tec) {
      if (!tec) Accept<Protocol>(acceptor);
    });
  });
}

void RpcServer::Start() {
  shm_->Start();
  for (auto& loop : loops_) threads_.emplace_back([&loop] { loop->run(); });
}

void RpcServer::Stop() {
  for (auto& g : guards_) g.reset();
  for (auto& loop : loops_) loop->stop();
  shm_->Stop();
}

void RpcServer::Wait() {
  for (auto& t : threads_) t.join();
  threads_.clear();
  shm_->Wait();
}

}  // namespace deltameta
