// The server side of shared-memory channels (shm_channel.h): loop threads, each serving
// the channels attached to it and sleeping on its doorbell while none has a request. Loops
// may be pinned to CPUs; a client pinned to one of those CPUs is served by a loop there
// (cpu_placement.h).
// Requests go to the FrameHandler as socket requests do (frame_handler.h); a channel
// whose request is malformed is dropped with one log line, the others go on.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "format/frame_handler.h"
#include "shm/shm_channel.h"

namespace deltameta {

class ShmServer {
  struct Served;
  struct Loop;

 public:
  // Without shared memory on this host (no memfd), Attach() fails and clients use sockets.
  // A loop re-reads its channels every `idle_recheck` even without a wake-up, so that a
  // client that scribbles over the doorbell delays the others by at most that much.
  // One loop per entry of `loop_cpus`: the CPU it is pinned to, or -1 for none.
  ShmServer(const std::vector<int>& loop_cpus, FrameHandler* handler, std::string log_prefix,
            std::chrono::milliseconds idle_recheck = std::chrono::milliseconds(1000));
  ~ShmServer();

  // One attached channel. Destroying it detaches the channel (the socket it was set up on
  // has closed); the loop lets go of it on its next pass.
  class Lease {
   public:
    ~Lease();
    // The descriptors to pass to the client; valid while the lease lives.
    int channel_fd() const;
    int doorbell_fd() const;
    // Moves with every request the client posts (ShmChannel::RequestTicket); read by the
    // socket's idle check, so a channel in use keeps its connection from counting as idle.
    uint32_t request_ticket() const;

   private:
    friend class ShmServer;
    Lease(std::shared_ptr<Served> served, Loop* loop) : served_(std::move(served)), loop_(loop) {}
    std::shared_ptr<Served> served_;
    Loop* loop_;
  };

  // Creates a channel for `peer` (named in log lines) on a loop pinned to `client_cpu` if
  // there is one, else on any loop; round robin among the candidates. nullptr with *error
  // if the shared memory cannot be had.
  std::unique_ptr<Lease> Attach(const std::string& peer, int client_cpu, std::string* error);
  // Starts the loops; they serve until Stop(). Both are thread-safe, Stop() idempotent.
  void Start();
  void Stop();
  // Returns once every loop thread has ended.
  void Wait();

 private:
  void Run(Loop* loop);
  bool Serve(Served* s, std::string* request, std::string* reply);

  FrameHandler* handler_;
  std::string log_prefix_;
  std::chrono::milliseconds idle_recheck_;
  std::string unavailable_;  // why there is no shared memory, if there is none
  std::vector<std::unique_ptr<Loop>> loops_;
  std::atomic<size_t> next_loop_{0};  // round robin over the candidate loops
  std::vector<std::thread> threads_;
};

}  // namespace deltameta
