// Shared-memory channel loops: see shm_server.h.
#include "shm/shm_server.h"

#include <algorithm>
#include <cstdio>

#include "util/cpu_placement.h"

namespace deltameta {

struct ShmServer::Served {
  std::unique_ptr<ShmChannel> channel;
  std::string peer;
  std::atomic<bool> detached{false};
};

struct ShmServer::Loop {
  int cpu = -1;  // pinned to, or -1
  std::unique_ptr<ShmDoorbell> doorbell;
  std::mutex mu;
  std::vector<std::shared_ptr<Served>> attached;  // guarded by mu; taken over by the loop
  std::atomic<bool> has_attached{false};          // set with `attached`, so a pass locks only then
  std::atomic<bool> stop{false};
};

ShmServer::Lease::~Lease() {
  served_->detached.store(true);
  loop_->doorbell->Ring();
}

int ShmServer::Lease::channel_fd() const { return served_->channel->fd(); }
int ShmServer::Lease::doorbell_fd() const { return loop_->doorbell->fd(); }
uint32_t ShmServer::Lease::request_ticket() const { return served_->channel->RequestTicket(); }

ShmServer::ShmServer(const std::vector<int>& loop_cpus, FrameHandler* handler, std::string log_prefix,
                     std::chrono::milliseconds idle_recheck)
    : handler_(handler), log_prefix_(std::move(log_prefix)), idle_recheck_(idle_recheck) {
  // A CPU outside this process's mask leaves its loop unpinned: clients still reach it.
  const std::vector<int> allowed = AllowedCpus();
  for (size_t i = 0; i < loop_cpus.size() && unavailable_.empty(); i++) {
    auto loop = std::make_unique<Loop>();
    if (std::find(allowed.begin(), allowed.end(), loop_cpus[i]) != allowed.end()) loop->cpu = loop_cpus[i];
    loop->doorbell = ShmDoorbell::Create(&unavailable_);
    if (loop->doorbell) loops_.push_back(std::move(loop));
  }
  if (!unavailable_.empty()) loops_.clear();
}

ShmServer::~ShmServer() {
  Stop();
  Wait();
}

std::unique_ptr<ShmServer::Lease> ShmServer::Attach(const std::string& peer, int client_cpu, std::string* error) {
  if (loops_.empty()) {
    *error = unavailable_;
    return nullptr;
  }
  std::vector<Loop*> candidates;
  for (auto& l : loops_) {
    if (client_cpu >= 0 && l->cpu == client_cpu) candidates.push_back(l.get());
  }
  if (candidates.empty()) {
    for (auto& l : loops_) candidates.push_back(l.get());
  }
  Loop* loop = candidates[next_loop_++ % candidates.size()];
  auto served = std::make_shared<Served>();
  served->channel = ShmChannel::Create(error);
  served->peer = peer;
  if (!served->channel) return nullptr;
  {
    std::lock_guard<std::mutex> lock(loop->mu);
    loop->attached.push_back(served);
    loop->has_attached.store(true);
  }
  loop->doorbell->Ring();
  return std::unique_ptr<Lease>(new Lease(std::move(served), loop));
}

void ShmServer::Start() {
  for (auto& loop : loops_) threads_.emplace_back([this, l = loop.get()] { Run(l); });
}

void ShmServer::Stop() {
  for (auto& loop : loops_) {
    loop->stop.store(true);
    loop->doorbell->Ring();
  }
}

void ShmServer::Wait() {
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void ShmServer::Run(Loop* loop) {
  if (loop->cpu >= 0) PinCallingThread(loop->cpu);
  std::vector<std::shared_ptr<Served>> mine;
  std::string request, reply;
  while (!loop->stop.load()) {
    const uint32_t count = loop->doorbell->Count();
    if (loop->has_attached.exchange(false)) {
      std::lock_guard<std::mutex> lock(loop->mu);
      for (auto& s : loop->attached) mine.push_back(std::move(s));
      loop->attached.clear();
    }
    mine.erase(std::remove_if(mine.begin(), mine.end(), [](const auto& s) { return s->detached.load(); }), mine.end());
    bool served = false;
    for (auto& s : mine) served |= Serve(s.get(), &request, &reply);
    if (!served) loop->doorbell->Sleep(count, idle_recheck_);
  }
}

bool ShmServer::Serve(Served* s, std::string* request, std::string* reply) {
  FrameHeader h;
  std::string_view body;
  const char* why = nullptr;
  switch (s->channel->TakeRequest(request, &h, &body, &why)) {
    case ShmChannel::Take::kNone:
      return false;
    case ShmChannel::Take::kMalformed:
      break;
    case ShmChannel::Take::kRequest:
      if (!handler_->Handle(h, body, reply)) {
        why = "malformed request body";
      } else if (reply->size() > ShmChannel::kSlotBytes) {
        why = "reply larger than the channel";
      } else {
        s->channel->PostReply(*reply);
        return true;
      }
  }
  std::fprintf(stderr, "%s: dropped shared-memory channel: %s from %s\n", log_prefix_.c_str(), why, s->peer.c_str());
  s->channel->Drop();
  s->detached.store(true);
  return true;
}

}  // namespace deltameta
