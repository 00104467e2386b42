// Event-loop RPC server: see rpc_server.h.
#include "rpc/rpc_server.h"

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/write.hpp>

#include "rpc/secret.h"
#include "rpc/transport.h"
#include "shm/shm_server.h"

namespace deltameta {
namespace rpc_internal {

// Per-op frames are tens of bytes; larger ones (bulk commits) grow the buffer.
constexpr size_t kInitialBuffer = 1 << 10;
constexpr uint64_t kNoTick = ~uint64_t{0};

// "2 s", "0.5 s".
static std::string Seconds(std::chrono::milliseconds d) {
  char b[32];
  std::snprintf(b, sizeof(b), "%g s", static_cast<double>(d.count()) / 1000.0);
  return b;
}

// What the sweep sees of a connection.
class Sweepable {
 public:
  virtual ~Sweepable() = default;
  // Closes the connection if its frame or its idleness has lasted too long.
  virtual void Sweep(uint64_t tick) = 0;
};

struct Shared {
  FrameHandler* handler = nullptr;
  ShmServer* shm = nullptr;
  std::string log_prefix;
  std::string secret;  // empty until the first Listen()
  RpcLimits limits;
  // Sweep ticks: a frame started at tick t is late once the tick exceeds t + frame_ticks.
  std::chrono::milliseconds sweep_period{1000};
  uint64_t frame_ticks = 0, idle_ticks = 0;  // idle_ticks 0: never
  // Bytes of buffer growth beyond kInitialBuffer, all connections together. Touched only
  // when a buffer grows past 1 KiB or shrinks back: never by per-op frames.
  std::atomic<size_t> buffered{0};

  bool Reserve(size_t n) {
    if (buffered.fetch_add(n, std::memory_order_relaxed) + n <= limits.buffer_budget) return true;
    buffered.fetch_sub(n, std::memory_order_relaxed);
    return false;
  }
  void Release(size_t n) { buffered.fetch_sub(n, std::memory_order_relaxed); }
};

struct Loop {
  asio::io_context context{1};
  asio::steady_timer sweep{context};
  std::vector<std::weak_ptr<Sweepable>> connections;  // this loop's, as of the last sweep
  uint64_t tick = 0;                                  // sweeps so far
  bool sweeping = false;                              // the sweep timer is armed
};

// One client connection. It waits for readability (no speculative read), reads what has
// arrived, serves every complete frame in it and writes the replies at once; only a reply
// the socket cannot take whole waits for writability. Three system calls per request.
// The first frame must be a hello with the server's secret (rpc_server.h). A same-host
// connection may then ask for a shared-memory channel (kAttachShm), which carries its
// requests; the connection stays open until the client closes it.
template <typename Protocol>
class Connection : public Sweepable, public std::enable_shared_from_this<Connection<Protocol>> {
 public:
  static constexpr bool kLocal = std::is_same_v<Protocol, asio::local::stream_protocol>;

  Connection(typename Protocol::socket socket, Shared* shared, Loop* loop)
      : socket_(std::move(socket)), shared_(shared), loop_(loop) {
    asio::error_code ec;
    if constexpr (std::is_same_v<Protocol, asio::ip::tcp>) {
      auto ep = socket_.remote_endpoint(ec);
      peer_ = ec ? "unknown peer" : ep.address().to_string() + ":" + std::to_string(ep.port());
      socket_.set_option(asio::ip::tcp::no_delay(true), ec);
    } else {
      ucred cred{};
      socklen_t len = sizeof(cred);
      peer_ = getsockopt(socket_.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0
                  ? "a local (Unix socket) peer, pid " + std::to_string(cred.pid) + " uid " + std::to_string(cred.uid)
                  : "a local (Unix socket) peer";
    }
    socket_.non_blocking(true, ec);
    in_.resize(kInitialBuffer);
  }

  ~Connection() override {
    if (in_.size() > kInitialBuffer) shared_->Release(in_.size() - kInitialBuffer);
  }

  // On the loop's thread, once registered: the hello is due within the frame timeout.
  void Start() {
    partial_since_ = last_active_ = loop_->tick;
    WaitForRequest();
  }

  void Sweep(uint64_t tick) override {
    if (!socket_.is_open()) return;
    if (lease_) {  // requests over the channel count as activity
      const uint32_t t = lease_->request_ticket();
      if (t != channel_ticket_) {
        channel_ticket_ = t;
        last_active_ = tick;
      }
    }
    if (partial_since_ != kNoTick && tick - partial_since_ > shared_->frame_ticks) {
      const std::string timeout = Seconds(shared_->limits.frame_timeout);
      return Drop(authenticated_ ? ("frame not complete within " + timeout + " of its first byte").c_str()
                                 : ("no hello within " + timeout + " of connecting").c_str());
    }
    if (shared_->idle_ticks != 0 && tick - last_active_ > shared_->idle_ticks) {
      Log(("closed idle connection: no request for " + Seconds(shared_->limits.idle_timeout)).c_str());
      Close();
    }
  }

 private:
  void WaitForRequest() {
    auto self = this->shared_from_this();
    socket_.async_wait(asio::socket_base::wait_read, [self](const asio::error_code& ec) {
      if (!ec) self->OnReadable();
    });
  }

  void OnReadable() {
    // A frame larger than the buffer: grow as its bytes arrive, doubling once it is full.
    if (want_ > in_.size() && in_.size() - filled_ < kInitialBuffer / 4 && !Grow()) return;
    asio::error_code ec;
    size_t n = socket_.read_some(asio::buffer(in_.data() + filled_, in_.size() - filled_), ec);
    if (ec == asio::error::would_block) return WaitForRequest();
    if (ec) {
      if (filled_ > 0) Log("connection closed in the middle of a frame");
      return;
    }
    filled_ += n;
    out_.clear();
    want_ = 0;
    size_t pos = 0;
    while (filled_ - pos >= kFrameHeaderBytes) {
      FrameHeader h;
      HeaderError he = ParseFrameHeader(in_.data() + pos, &h);
      if (he != HeaderError::kNone) return Drop(HeaderErrorName(he));
      if (!authenticated_ && !MayStart(h)) return;
      const size_t frame = kFrameHeaderBytes + h.body_bytes;
      if (filled_ - pos < frame) {
        want_ = frame;
        break;
      }
      const std::string_view body(in_.data() + pos + kFrameHeaderBytes, h.body_bytes);
      if (h.type == MsgType::kAttachShm || h.type == MsgType::kHello) {
        if (!Control(h, body)) return;
      } else if (shared_->handler->Handle(h, body, &reply_)) {
        out_ += reply_;
      } else {
        return Drop("malformed request body");
      }
      pos += frame;
    }
    if (pos > 0) last_active_ = loop_->tick;
    std::memmove(in_.data(), in_.data() + pos, filled_ - pos);
    filled_ -= pos;
    if (filled_ == 0) {
      partial_since_ = kNoTick;
      if (in_.size() > kInitialBuffer) Shrink();
    } else if (pos > 0 || partial_since_ == kNoTick) {
      partial_since_ = loop_->tick;  // a new frame started in this read
    }
    size_t written = out_.empty() ? 0 : socket_.write_some(asio::buffer(out_), ec);
    if (ec && ec != asio::error::would_block) return;
    if (written == out_.size()) return WaitForRequest();
    auto self = this->shared_from_this();
    asio::async_write(socket_, asio::buffer(out_.data() + written, out_.size() - written),
                      [self](const asio::error_code& wec, size_t) {
                        if (!wec) self->WaitForRequest();
                      });
  }

  // Before the hello: only a hello may start, and it is small, so nothing unauthenticated
  // ever grows the buffer. False if the connection was dropped.
  bool MayStart(const FrameHeader& h) {
    if (h.type != MsgType::kHello) {
      Drop("first frame is not a hello (the peer did not present the job's secret)");
      return false;
    }
    if (h.body_bytes != kHelloSecretBytes) {
      Drop("malformed hello");
      return false;
    }
    return true;
  }

  // The frames the connection itself answers. False if the connection was dropped.
  bool Control(const FrameHeader& h, std::string_view body) {
    if (h.type == MsgType::kHello) return Hello(h.seq, body);
    int client_cpu = -1;
    if (!DecodeAttachShm(body, &client_cpu)) {
      Drop("malformed request body");
      return false;
    }
    return AttachShm(client_cpu, h.seq);
  }

  bool Hello(uint32_t seq, std::string_view body) {
    std::string_view secret;
    if (authenticated_ || !DecodeHello(body, &secret)) {
      Drop(authenticated_ ? "a second hello" : "malformed hello");
      return false;
    }
    if (!SecretsEqual(secret, shared_->secret)) {
      Log("refused connection: wrong secret (another user's, or another DELTAMETA_SECRET_FILE)");
      EncodeHelloReply(OpStatus::kBadSecret, seq, &reply_);
      asio::error_code ignored;
      socket_.write_some(asio::buffer(reply_), ignored);  // 13 bytes: an empty socket takes them
      socket_.shutdown(asio::socket_base::shutdown_send, ignored);
      Close();
      return false;
    }
    authenticated_ = true;
    EncodeHelloReply(OpStatus::kOk, seq, &reply_);
    out_ += reply_;
    return true;
  }

  // Answers an attach request: with a channel whose descriptors travel with the reply, or
  // kUnsupported (over TCP, a second attach, or no shared memory here). False if the
  // connection was dropped.
  bool AttachShm(int client_cpu, uint32_t seq) {
    std::string error = "only a same-host connection can share memory";
    if constexpr (kLocal) {
      ShmServer* shm = shared_->shm;
      if (lease_) error = "this connection has a channel already";
      if (shm != nullptr && !lease_ && (lease_ = shm->Attach(peer_, client_cpu, &error))) {
        channel_ticket_ = lease_->request_ticket();
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

  // Doubles the buffer (up to the frame being assembled) within the server's budget.
  // False if the connection was dropped.
  bool Grow() {
    const size_t size = std::min(want_, in_.size() * 2);
    if (!shared_->Reserve(size - in_.size())) {
      Drop(("a frame of " + std::to_string(want_) + " bytes would take the requests this server buffers over its " +
            std::to_string(shared_->limits.buffer_budget >> 20) + " MiB (--conn_buffer_mb)")
               .c_str());
      return false;
    }
    in_.resize(size);
    return true;
  }

  // Back to the first 1 KiB once a large frame has been served.
  void Shrink() {
    shared_->Release(in_.size() - kInitialBuffer);
    std::vector<char>(kInitialBuffer).swap(in_);
  }

  void Drop(const char* why) {
    Log((std::string("dropped connection: ") + why).c_str());
    Close();
  }

  void Close() {
    asio::error_code ignored;
    socket_.close(ignored);
  }

  void Log(const char* what) {
    std::fprintf(stderr, "%s: %s from %s\n", shared_->log_prefix.c_str(), what, peer_.c_str());
  }

  typename Protocol::socket socket_;
  Shared* shared_;
  Loop* loop_;
  std::unique_ptr<ShmServer::Lease> lease_;  // the channel this connection set up, if any
  std::string peer_;
  std::vector<char> in_;
  size_t filled_ = 0;
  size_t want_ = 0;  // the size of the frame being assembled, once its header is in; else 0
  bool authenticated_ = false;
  uint64_t partial_since_ = kNoTick;  // the tick a frame not yet complete began, if any
  uint64_t last_active_ = 0;          // the tick of the last complete request
  uint32_t channel_ticket_ = 0;       // the channel's request ticket at the last sweep
  std::string reply_, out_;
};

}  // namespace rpc_internal

using rpc_internal::Connection;
using rpc_internal::Sweepable;

RpcServer::RpcServer(int threads, FrameHandler* handler, std::string log_prefix, const std::vector<int>& shm_loop_cpus,
                     const RpcLimits& limits)
    : handler_(handler),
      log_prefix_(std::move(log_prefix)),
      shared_(std::make_unique<Shared>()),
      shm_(std::make_unique<ShmServer>(
          shm_loop_cpus.empty() ? std::vector<int>(static_cast<size_t>(threads), -1) : shm_loop_cpus, handler,
          log_prefix_)) {
  using std::chrono::milliseconds;
  shared_->handler = handler_;
  shared_->shm = shm_.get();
  shared_->log_prefix = log_prefix_;
  shared_->limits = limits;
  shared_->limits.frame_timeout = std::max(limits.frame_timeout, milliseconds(1));
  shared_->limits.idle_timeout = std::max(limits.idle_timeout, milliseconds(0));
  // A quarter of the shorter timeout, within 50 ms to 1 s: a timeout fires within one
  // period after it has passed.
  milliseconds shortest = shared_->limits.frame_timeout;
  if (shared_->limits.idle_timeout.count() > 0) shortest = std::min(shortest, shared_->limits.idle_timeout);
  const milliseconds period = std::clamp(shortest / 4, milliseconds(50), milliseconds(1000));
  auto ticks = [period](milliseconds t) {
    return static_cast<uint64_t>((t.count() + period.count() - 1) / period.count());
  };
  shared_->sweep_period = period;
  shared_->frame_ticks = ticks(shared_->limits.frame_timeout);
  shared_->idle_ticks = ticks(shared_->limits.idle_timeout);
  for (int i = 0; i < threads; i++) {
    loops_.push_back(std::make_unique<Loop>());
    guards_.push_back(asio::make_work_guard(loops_.back()->context));
  }
  signals_ = std::make_unique<asio::signal_set>(loops_[0]->context, SIGINT, SIGTERM);
  signals_->async_wait([this](const asio::error_code& ec, int) {
    if (!ec) Stop();
  });
}

RpcServer::~RpcServer() {
  Stop();
  Wait();
}

uint16_t RpcServer::Listen(const std::string& ip, uint16_t port, std::string* error) {
  if (shared_->secret.empty()) {
    const std::string path = SecretFilePath(error);
    if (path.empty() || !ReadOrCreateSecret(path, &shared_->secret, nullptr, error)) return 0;
  }
  asio::error_code ec;
  auto address = asio::ip::make_address(ip, ec);
  if (ec) {
    *error = "malformed listen address '" + ip + "': " + ec.message();
    return 0;
  }
  auto acceptor = std::make_unique<asio::ip::tcp::acceptor>(loops_[0]->context);
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
  auto local = std::make_unique<asio::local::stream_protocol::acceptor>(loops_[0]->context);
  asio::local::stream_protocol::endpoint local_ep(LocalSocketName(ip, bound));
  local->open(local_ep.protocol(), ec);
  if (!ec) local->bind(local_ep, ec);
  if (!ec) local->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    std::fprintf(stderr, "%s: no same-host listener for %s:%u (%s); clients use TCP\n", log_prefix_.c_str(), ip.c_str(),
                 bound, ec.message().c_str());
  } else {
    local_acceptors_.push_back(std::move(local));
    Accept<asio::local::stream_protocol>(local_acceptors_.back().get());
  }
  return bound;
}

template <typename Protocol>
void RpcServer::Accept(typename Protocol::acceptor* acceptor) {
  Loop* loop = loops_[next_loop_++ % loops_.size()].get();
  acceptor->async_accept(
      loop->context, [this, acceptor, loop](const asio::error_code& ec, typename Protocol::socket socket) {
        if (ec == asio::error::operation_aborted) return;
        if (!ec) {
          auto c = std::make_shared<Connection<Protocol>>(std::move(socket), shared_.get(), loop);
          // The connection's own loop registers and starts it: its state is that thread's alone.
          asio::post(loop->context, [this, loop, c] {
            Register(loop, c);
            c->Start();
          });
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

template <typename Conn>
void RpcServer::Register(Loop* loop, const std::shared_ptr<Conn>& connection) {
  loop->connections.push_back(std::static_pointer_cast<Sweepable>(connection));
  if (!loop->sweeping) {
    loop->sweeping = true;
    ArmSweep(loop);
  }
}

// One timer per loop, armed while the loop has connections: each expiry advances the
// loop's tick and checks every connection's deadlines.
void RpcServer::ArmSweep(Loop* loop) {
  loop->sweep.expires_after(shared_->sweep_period);
  loop->sweep.async_wait([this, loop](const asio::error_code& ec) {
    if (ec) {
      loop->sweeping = false;
      return;
    }
    loop->tick++;
    auto& all = loop->connections;
    size_t kept = 0;
    for (size_t i = 0; i < all.size(); i++) {
      auto c = all[i].lock();
      if (!c) continue;  // gone
      c->Sweep(loop->tick);
      if (kept != i) all[kept] = std::move(all[i]);
      kept++;
    }
    all.resize(kept);
    if (all.empty()) {
      loop->sweeping = false;
    } else {
      ArmSweep(loop);
    }
  });
}

void RpcServer::Start() {
  shm_->Start();
  for (auto& loop : loops_) threads_.emplace_back([l = loop.get()] { l->context.run(); });
}

void RpcServer::Stop() {
  for (auto& g : guards_) g.reset();
  for (auto& loop : loops_) loop->context.stop();
  shm_->Stop();
}

void RpcServer::Wait() {
  for (auto& t : threads_) t.join();
  threads_.clear();
  shm_->Wait();
}

}  // namespace deltameta
