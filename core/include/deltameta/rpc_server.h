// An event-loop RPC server (Asio): accepts connections on one or more TCP ports, each
// with a same-host twin (transport.h), and serves them on `threads` loops, each loop a
// thread of its own with its own connections (no hand-off between threads per request).
// Same-host clients that ask for shared-memory channels are served by `threads` more
// loops (shm_server.h). Every valid request frame goes to a FrameHandler; a connection
// that sends a malformed frame is dropped with one log line, the others go on.
#pragma once

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

#include "deltameta/wire.h"

namespace deltameta {

class ShmServer;

class FrameHandler {
 public:
  virtual ~FrameHandler() = default;
  // Handles one request and sets *reply to one complete reply frame. Called concurrently
  // from the loop threads. Returns false if the body is malformed (connection dropped).
  virtual bool Handle(const FrameHeader& header, std::string_view body, std::string* reply) = 0;
};

class RpcServer {
 public:
  // `log_prefix` starts every log line, e.g. "deltameta_server[r1]". The shared-memory
  // loops are pinned to `shm_loop_cpus`, one loop per entry (-1: not pinned); if it is
  // empty, there are `threads` loops, none pinned.
  RpcServer(int threads, FrameHandler* handler, std::string log_prefix, const std::vector<int>& shm_loop_cpus = {});
  ~RpcServer();

  // Starts accepting on ip:port (port 0: any free port) once Start() runs. Returns the
  // bound port, or 0 with *error naming the address.
  uint16_t Listen(const std::string& ip, uint16_t port, std::string* error);
  // Starts the loop threads. They serve until SIGINT, SIGTERM or Stop().
  void Start();
  // Thread-safe; also safe before Start().
  void Stop();
  // Returns once every loop thread has ended.
  void Wait();

 private:
  using WorkGuard = asio::executor_work_guard<asio::io_context::executor_type>;
  template <typename Protocol>
  void Accept(typename Protocol::acceptor* acceptor);

  FrameHandler* handler_;
  std::string log_prefix_;
  std::unique_ptr<ShmServer> shm_;  // outlives the loops: their connections hold its leases
  std::vector<std::unique_ptr<asio::io_context>> loops_;
  std::vector<WorkGuard> guards_;
  std::unique_ptr<asio::signal_set> signals_;
  std::vector<std::unique_ptr<asio::ip::tcp::acceptor>> tcp_acceptors_;
  std::vector<std::unique_ptr<asio::local::stream_protocol::acceptor>> local_acceptors_;
  std::vector<std::thread> threads_;
  size_t next_loop_ = 0;
};

}  // namespace deltameta
