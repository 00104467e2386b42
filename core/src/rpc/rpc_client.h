// A blocking RPC connection to one server: one request in flight, a reply awaited with a
// deadline. Owned and used by a single thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "format/wire.h"
#include "rpc/transport.h"
#include "shm/shm_channel.h"

namespace deltameta {

// Splits "tcp://host:port" or "host:port". False with *error if malformed.
bool ParseAddress(const std::string& uri, std::string* host, uint16_t* port, std::string* error);

class RpcClient {
 public:
  // Connects to `address`, retrying while the server refuses, for at most `timeout`; the
  // same timeout bounds every later call. Every connection starts with a hello that
  // presents the job's secret (secret.h), read from its file on each call. A server in the
  // same network namespace is reached over the fastest transport that `fastest` allows
  // (transport.h); a server that cannot share memory is used over its Unix socket. nullptr
  // with a one-line *error naming the address (or the secret file) on failure.
  static std::unique_ptr<RpcClient> Connect(const std::string& address, std::chrono::milliseconds timeout,
                                            Transport fastest, std::string* error);
  ~RpcClient();

  // Sends `request` (one complete frame) and waits for its reply, which must be of
  // `reply_type` and carry the request's sequence number. *body views the reply body and
  // stays valid until the next call. False with *error on timeout, disconnect or bad reply.
  bool Call(const std::string& request, MsgType reply_type, std::string_view* body, std::string* error);

  uint32_t NextSeq() { return ++seq_; }
  const std::string& address() const { return address_; }
  Transport transport() const { return transport_; }

 private:
  RpcClient(int fd, std::string address, std::chrono::milliseconds timeout, Transport transport)
      : fd_(fd), address_(std::move(address)), timeout_(timeout), transport_(transport) {}
  static constexpr size_t kReplyBuffer = 4096;
  // Presents the secret read from `secret_file`; false with *error if the server refused it.
  bool Hello(const std::string& secret, const std::string& secret_file, std::string* error);
  // Asks the server for a shared-memory channel; stays on the socket if it has none.
  bool AttachShm(std::string* error);
  bool Send(const std::string& request, std::string* error);
  // Receives one reply frame from the socket into buffer_; descriptors that come with it
  // go to *fds (closed if fds is null). *frame views header and body.
  bool ReceiveFrame(std::string_view* frame, std::vector<int>* fds, std::string* error);
  // Receives into buffer_ (already holding *got bytes) until it holds at least `want`.
  bool ReceiveAtLeast(size_t want, size_t* got, std::vector<int>* fds, std::string* error);
  // Waits for the shared-memory reply, checking that the server lives while it waits.
  bool AwaitShmReply(std::string_view* frame, std::string* error);
  // Checks that `frame` (header and body) answers `request` with `reply_type`.
  bool CheckReply(std::string_view frame, const std::string& request, MsgType reply_type, std::string* error);

  int fd_;
  std::string address_;
  std::chrono::milliseconds timeout_;
  Transport transport_;
  std::unique_ptr<ShmChannel> channel_;
  std::unique_ptr<ShmDoorbell> doorbell_;
  std::string buffer_;
  uint32_t seq_ = 0;
};

}  // namespace deltameta
