// An event-loop RPC server (Asio): accepts connections on one or more ports, reads
// frames, hands each valid request to a FrameHandler on the loop thread, writes replies.
// A connection that sends a malformed frame is dropped with one log line; the others go on.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>

#include "deltameta/wire.h"

namespace deltameta {

class FrameHandler {
 public:
  virtual ~FrameHandler() = default;
  // Handles one request and sets *reply to one complete reply frame. Called concurrently
  // from the loop threads. Returns false if the body is malformed (connection dropped).
  virtual bool Handle(const FrameHeader& header, std::string_view body, std::string* reply) = 0;
};

class RpcServer {
 public:
  // `log_prefix` starts every log line, e.g. "deltameta_server[r1]".
  RpcServer(asio::io_context& io, FrameHandler* handler, std::string log_prefix);

  // Starts accepting on ip:port (port 0: any free port). Returns the bound port, or 0
  // with *error naming the address.
  uint16_t Listen(const std::string& ip, uint16_t port, std::string* error);
  // Stops accepting; connections end when the io_context stops.
  void StopAccepting();

 private:
  void Accept(asio::ip::tcp::acceptor* acceptor);

  asio::io_context& io_;
  FrameHandler* handler_;
  std::string log_prefix_;
  std::vector<std::unique_ptr<asio::ip::tcp::acceptor>> acceptors_;
};

}  // namespace deltameta
