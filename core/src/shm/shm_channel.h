// Shared-memory RPC channels between a client thread and a server on the same host.
//
// A channel is a sealed memfd holding a request slot and a reply slot, each big enough for
// the largest frame (wire.h), and two tickets. The client copies a request frame into its
// slot and bumps the request ticket; the server copies the frame out, serves it, writes the
// reply frame and sets the reply ticket to the request's. A server loop serves many channels
// and sleeps on a doorbell (a sealed memfd of its own, shared with its clients) when none
// has a request. Each side sleeps on a futex and is woken only if it sleeps, so a call costs
// at most two wake-ups, four system calls and no socket buffers.
//
// Shared memory is not trusted: the server copies a request before parsing it, the client
// validates a reply's header, and the seals keep a peer from shrinking the memory under the
// other (which would fault it). The memfds are passed over the same-host Unix socket
// (transport.h), which stays open so that each side notices the other's death.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "format/wire.h"

namespace deltameta {

// A sealed, shared memfd mapping. Move-only; unmaps and closes on destruction.
class ShmRegion {
 public:
  // A new zero-filled region of `bytes`, sealed against resizing. *error on failure.
  static bool Create(const char* name, size_t bytes, ShmRegion* out, std::string* error);
  // Maps a region received from a peer; takes ownership of `fd`. It must be sealed against
  // resizing and exactly `bytes` long.
  static bool Map(int fd, size_t bytes, ShmRegion* out, std::string* error);

  ShmRegion() = default;
  ShmRegion(ShmRegion&& other) noexcept { *this = std::move(other); }
  ShmRegion& operator=(ShmRegion&& other) noexcept;
  ~ShmRegion();

  int fd() const { return fd_; }
  char* data() const { return data_; }

 private:
  int fd_ = -1;
  char* data_ = nullptr;
  size_t bytes_ = 0;
};

// Wakes a server loop that sleeps when none of its channels has a request.
class ShmDoorbell {
 public:
  static std::unique_ptr<ShmDoorbell> Create(std::string* error);
  static std::unique_ptr<ShmDoorbell> Open(int fd, std::string* error);  // takes `fd`
  int fd() const { return region_.fd(); }

  // Anyone: there is work. A system call only if the loop sleeps.
  void Ring();
  // The loop: read the count, look for work, and if there was none, Sleep(count): it
  // returns at once if Ring() came in between, else on the next Ring() or after `timeout`.
  uint32_t Count() const;
  void Sleep(uint32_t count, std::chrono::milliseconds timeout);

 private:
  struct Control;
  explicit ShmDoorbell(ShmRegion region);
  ShmRegion region_;
  Control* control_;
};

class ShmChannel {
 public:
  static constexpr size_t kSlotBytes = kFrameHeaderBytes + kMaxFrameBodyBytes;

  static std::unique_ptr<ShmChannel> Create(std::string* error);        // server side
  static std::unique_ptr<ShmChannel> Open(int fd, std::string* error);  // client side; takes `fd`
  int fd() const { return region_.fd(); }

  // --- Client side, one thread. ---
  // Copies `frame` (at most kSlotBytes) into the request slot and publishes it.
  void PostRequest(std::string_view frame);
  enum class Wait { kReply, kDropped, kTimeout };
  // Sleeps until the reply to the last request is published (kReply), the server dropped
  // the channel (kDropped) or `timeout` passed.
  Wait AwaitReply(std::chrono::milliseconds timeout);
  // The reply slot: a frame whose header the caller validates before reading its body.
  const char* reply_slot() const { return reply_slot_; }

  // --- Server side, one loop thread. ---
  enum class Take { kNone, kRequest, kMalformed };
  // If a request was posted since the last one taken, copies it: *header and *body (a view
  // of *buffer) on kRequest; *why names the fault on kMalformed.
  Take TakeRequest(std::string* buffer, FrameHeader* header, std::string_view* body, const char** why);
  // Publishes `frame` (at most kSlotBytes) as the reply to the request last taken.
  void PostReply(std::string_view frame);
  // Ends the channel: the client's pending and later calls fail.
  void Drop();
  // The client's request ticket as it stands: it moves with every request posted. Any
  // thread may read it (the server's idle check does, now and then).
  uint32_t RequestTicket() const;

 private:
  struct Control;
  explicit ShmChannel(ShmRegion region);
  // Makes the request last taken answered, waking the client if it sleeps.
  void PublishReply();

  ShmRegion region_;
  Control* control_;
  char* request_slot_;
  char* reply_slot_;
  uint32_t ticket_ = 0;  // client: the last request posted; server: the last one taken
};

}  // namespace deltameta
