// An event-loop RPC server (Asio): accepts connections on one or more TCP ports, each
// with a same-host twin (transport.h), and serves them on `threads` loops, each loop a
// thread of its own with its own connections (no hand-off between threads per request).
// Same-host clients that ask for shared-memory channels are served by `threads` more
// loops (shm_server.h). Every valid request frame goes to a FrameHandler
// (frame_handler.h); a connection that sends a malformed frame is dropped with one log
// line, the others go on.
//
// Who may talk to it: the first frame on every connection must be a hello carrying the
// job's secret (secret.h). A connection whose first frame is anything else is dropped with
// one log line; a wrong secret is answered kBadSecret, logged and closed. Shared-memory
// channels are set up over an authenticated connection only.
//
// What a slow or hostile peer can hold (RpcLimits): a connection's buffer starts at 1 KiB
// and grows only as a frame's bytes arrive (at most twice what arrived), never to the size
// a header announces; growth beyond 1 KiB counts against one budget per server, and a
// connection whose frame would exceed it is dropped. A frame must complete within the
// frame timeout of its first byte (the hello within the frame timeout of connecting), and
// a connection without a complete request for the idle timeout is closed. One sweep timer
// per loop checks both, so a request costs no timer, clock read or shared counter.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/local/stream_protocol.hpp>
#include <asio/signal_set.hpp>

#include "format/frame_handler.h"

namespace deltameta {

class ShmServer;
namespace rpc_internal {
struct Shared;  // what every connection needs: handler, secret, limits, the budget
struct Loop;    // a loop thread's context, its connections and its sweep timer
}  // namespace rpc_internal

struct RpcLimits {
  // A frame must arrive whole within this of its first byte; a new connection must
  // complete its hello within this of being accepted.
  std::chrono::milliseconds frame_timeout{std::chrono::seconds(10)};
  // A connection with no complete request (over its socket or its shared-memory channel)
  // for this long is closed; 0: never.
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(1800)};
  // Request bytes all connections together may buffer beyond their first 1 KiB each.
  size_t buffer_budget = size_t{64} << 20;
};

class RpcServer {
 public:
  // `log_prefix` starts every log line, e.g. "deltameta_server[r1]". The shared-memory
  // loops are pinned to `shm_loop_cpus`, one loop per entry (-1: not pinned); if it is
  // empty, there are `threads` loops, none pinned.
  RpcServer(int threads, FrameHandler* handler, std::string log_prefix, const std::vector<int>& shm_loop_cpus = {},
            const RpcLimits& limits = RpcLimits());
  ~RpcServer();

  // Starts accepting on ip:port (port 0: any free port) once Start() runs. Returns the
  // bound port, or 0 with *error naming the address. The first call also reads the job's
  // secret, making it if it is missing (secret.h); 0 with *error if that fails.
  uint16_t Listen(const std::string& ip, uint16_t port, std::string* error);
  // Starts the loop threads. They serve until SIGINT, SIGTERM or Stop().
  void Start();
  // Thread-safe; also safe before Start().
  void Stop();
  // Returns once every loop thread has ended.
  void Wait();

 private:
  using WorkGuard = asio::executor_work_guard<asio::io_context::executor_type>;
  using Shared = rpc_internal::Shared;
  using Loop = rpc_internal::Loop;
  template <typename Protocol>
  void Accept(typename Protocol::acceptor* acceptor);
  // On `loop`'s thread: `loop` sweeps the connection from now on.
  template <typename Conn>
  void Register(Loop* loop, const std::shared_ptr<Conn>& connection);
  void ArmSweep(Loop* loop);

  FrameHandler* handler_;
  std::string log_prefix_;
  std::unique_ptr<Shared> shared_;  // outlives the loops and their connections
  std::unique_ptr<ShmServer> shm_;  // outlives the loops: their connections hold its leases
  std::vector<std::unique_ptr<Loop>> loops_;
  std::vector<WorkGuard> guards_;
  std::unique_ptr<asio::signal_set> signals_;
  std::vector<std::unique_ptr<asio::ip::tcp::acceptor>> tcp_acceptors_;
  std::vector<std::unique_ptr<asio::local::stream_protocol::acceptor>> local_acceptors_;
  std::vector<std::thread> threads_;
  size_t next_loop_ = 0;
};

}  // namespace deltameta
