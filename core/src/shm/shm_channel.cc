// Shared-memory RPC channels with futex wake-ups: see shm_channel.h.
#include "shm/shm_channel.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <new>

namespace deltameta {
namespace {

constexpr uint32_t kMagic = 0x444d5348;  // "DMSH"
constexpr uint32_t kLayoutVersion = 1;
constexpr size_t kPage = 4096;
constexpr int kSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

// Cross-process (not FUTEX_PRIVATE) futex calls on a 32-bit word in a shared mapping.
void FutexWait(std::atomic<uint32_t>* word, uint32_t expected, std::chrono::milliseconds timeout) {
  timespec ts{static_cast<time_t>(timeout.count() / 1000), static_cast<long>(timeout.count() % 1000 * 1000000)};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}

void FutexWake(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

constexpr size_t RoundToPage(size_t n) { return (n + kPage - 1) / kPage * kPage; }

// Maps a region a peer made (taking `fd`) and checks that it starts, as every control
// block here does, with this build's magic and layout version.
bool MapLayout(int fd, size_t bytes, const char* what, ShmRegion* out, std::string* error) {
  if (!ShmRegion::Map(fd, bytes, out, error)) return false;
  uint32_t head[2];
  std::memcpy(head, out->data(), sizeof(head));
  if (head[0] == kMagic && head[1] == kLayoutVersion) return true;
  *error = std::string("the ") + what + "'s layout is not this build's";
  *out = ShmRegion();
  return false;
}

static_assert(std::atomic<uint32_t>::is_always_lock_free, "futex words must be plain 32-bit words");

}  // namespace

// ---------------------------------------------------------------------------------------
// ShmRegion

bool ShmRegion::Create(const char* name, size_t bytes, ShmRegion* out, std::string* error) {
  int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) {
    *error = std::string("memfd_create: ") + std::strerror(errno);
    return false;
  }
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0 || fcntl(fd, F_ADD_SEALS, kSeals) != 0) {
    *error = std::string("cannot size and seal a memfd: ") + std::strerror(errno);
    close(fd);
    return false;
  }
  return Map(fd, bytes, out, error);
}

bool ShmRegion::Map(int fd, size_t bytes, ShmRegion* out, std::string* error) {
  struct stat st {};
  int seals = fcntl(fd, F_GET_SEALS);
  if (fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) != bytes || seals < 0 ||
      (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW)) {
    *error = "not a sealed shared-memory region of " + std::to_string(bytes) + " bytes";
    close(fd);
    return false;
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    *error = std::string("cannot map shared memory: ") + std::strerror(errno);
    close(fd);
    return false;
  }
  ShmRegion r;
  r.fd_ = fd;
  r.data_ = static_cast<char*>(p);
  r.bytes_ = bytes;
  *out = std::move(r);
  return true;
}

ShmRegion& ShmRegion::operator=(ShmRegion&& other) noexcept {
  std::swap(fd_, other.fd_);
  std::swap(data_, other.data_);
  std::swap(bytes_, other.bytes_);
  return *this;
}

ShmRegion::~ShmRegion() {
  if (data_ != nullptr) munmap(data_, bytes_);
  if (fd_ >= 0) close(fd_);
}

// ---------------------------------------------------------------------------------------
// ShmDoorbell

struct ShmDoorbell::Control {
  uint32_t magic;
  uint32_t version;
  alignas(64) std::atomic<uint32_t> count;
  std::atomic<uint32_t> sleeping;
};

ShmDoorbell::ShmDoorbell(ShmRegion region)
    : region_(std::move(region)), control_(reinterpret_cast<Control*>(region_.data())) {
  static_assert(sizeof(Control) <= kPage);
}

std::unique_ptr<ShmDoorbell> ShmDoorbell::Create(std::string* error) {
  ShmRegion r;
  if (!ShmRegion::Create("deltameta-doorbell", kPage, &r, error)) return nullptr;
  new (r.data()) Control{kMagic, kLayoutVersion, {0}, {0}};
  return std::unique_ptr<ShmDoorbell>(new ShmDoorbell(std::move(r)));
}

std::unique_ptr<ShmDoorbell> ShmDoorbell::Open(int fd, std::string* error) {
  ShmRegion r;
  if (!MapLayout(fd, kPage, "doorbell", &r, error)) return nullptr;
  return std::unique_ptr<ShmDoorbell>(new ShmDoorbell(std::move(r)));
}

void ShmDoorbell::Ring() {
  control_->count.fetch_add(1);
  if (control_->sleeping.load() != 0) FutexWake(&control_->count);
}

uint32_t ShmDoorbell::Count() const { return control_->count.load(); }

void ShmDoorbell::Sleep(uint32_t count, std::chrono::milliseconds timeout) {
  // With Ring()'s order reversed, at least one side sees the other: the ringer sees the
  // sleeper and wakes it, or the sleeper sees the new count and does not sleep.
  control_->sleeping.store(1);
  if (control_->count.load() == count) FutexWait(&control_->count, count, timeout);
  control_->sleeping.store(0, std::memory_order_relaxed);
}

// ---------------------------------------------------------------------------------------
// ShmChannel

struct ShmChannel::Control {
  uint32_t magic;
  uint32_t version;
  alignas(64) std::atomic<uint32_t> request_ticket;
  alignas(64) std::atomic<uint32_t> reply_ticket;
  std::atomic<uint32_t> client_sleeps;
  std::atomic<uint32_t> dropped;
};

namespace {
constexpr size_t kRequestOffset = kPage;
constexpr size_t kReplyOffset = kRequestOffset + RoundToPage(ShmChannel::kSlotBytes);
constexpr size_t kChannelBytes = kReplyOffset + RoundToPage(ShmChannel::kSlotBytes);
}  // namespace

ShmChannel::ShmChannel(ShmRegion region)
    : region_(std::move(region)),
      control_(reinterpret_cast<Control*>(region_.data())),
      request_slot_(region_.data() + kRequestOffset),
      reply_slot_(region_.data() + kReplyOffset) {
  static_assert(sizeof(Control) <= kRequestOffset);
}

std::unique_ptr<ShmChannel> ShmChannel::Create(std::string* error) {
  ShmRegion r;
  if (!ShmRegion::Create("deltameta-channel", kChannelBytes, &r, error)) return nullptr;
  new (r.data()) Control{kMagic, kLayoutVersion, {0}, {0}, {0}, {0}};
  return std::unique_ptr<ShmChannel>(new ShmChannel(std::move(r)));
}

std::unique_ptr<ShmChannel> ShmChannel::Open(int fd, std::string* error) {
  ShmRegion r;
  if (!MapLayout(fd, kChannelBytes, "channel", &r, error)) return nullptr;
  auto channel = std::unique_ptr<ShmChannel>(new ShmChannel(std::move(r)));
  channel->ticket_ = channel->control_->request_ticket.load();
  return channel;
}

void ShmChannel::PostRequest(std::string_view frame) {
  std::memcpy(request_slot_, frame.data(), frame.size());
  control_->request_ticket.store(++ticket_, std::memory_order_release);
}

ShmChannel::Wait ShmChannel::AwaitReply(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    // Drop() sets `dropped` before the ticket, so a ticket moved by it reads as dropped.
    const bool answered = control_->reply_ticket.load(std::memory_order_acquire) == ticket_;
    if (control_->dropped.load() != 0) return Wait::kDropped;
    if (answered) return Wait::kReply;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Wait::kTimeout;
    // The mirror of PublishReply(): the server sees client_sleeps, or this sees the ticket.
    control_->client_sleeps.store(1);
    uint32_t seen = control_->reply_ticket.load();
    if (seen != ticket_) FutexWait(&control_->reply_ticket, seen, left);
    control_->client_sleeps.store(0, std::memory_order_relaxed);
  }
}

ShmChannel::Take ShmChannel::TakeRequest(std::string* buffer, FrameHeader* header, std::string_view* body,
                                         const char** why) {
  uint32_t ticket = control_->request_ticket.load(std::memory_order_acquire);
  if (ticket == ticket_) return Take::kNone;
  ticket_ = ticket;
  // Copy first, then parse the copy: the client may be writing the slot meanwhile.
  buffer->assign(request_slot_, kFrameHeaderBytes);
  HeaderError he = ParseFrameHeader(buffer->data(), header);
  if (he != HeaderError::kNone) {
    *why = HeaderErrorName(he);
    return Take::kMalformed;
  }
  buffer->append(request_slot_ + kFrameHeaderBytes, header->body_bytes);
  *body = std::string_view(buffer->data() + kFrameHeaderBytes, header->body_bytes);
  return Take::kRequest;
}

void ShmChannel::PostReply(std::string_view frame) {
  std::memcpy(reply_slot_, frame.data(), frame.size());
  PublishReply();
}

uint32_t ShmChannel::RequestTicket() const { return control_->request_ticket.load(std::memory_order_relaxed); }

void ShmChannel::Drop() {
  control_->dropped.store(1);
  PublishReply();
}

void ShmChannel::PublishReply() {
  control_->reply_ticket.store(ticket_);
  if (control_->client_sleeps.load() != 0) FutexWake(&control_->reply_ticket);
}

}  // namespace deltameta
