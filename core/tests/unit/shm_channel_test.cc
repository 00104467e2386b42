// Tests shm_channel.h and shm_server.h: calls through a channel, the checks on memory a
// peer hands over, a malformed request dropping only its own channel, wake-ups that are
// never lost under concurrent clients, and channels served on their client's CPU.
#include "shm/shm_channel.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "format/byte_order.h"
#include "shm/shm_server.h"
#include "util/cpu_placement.h"

namespace deltameta {
namespace {

using std::chrono::milliseconds;

// Answers every stats request with cpu_micros = the request's sequence number; refuses
// anything else as malformed.
class EchoHandler : public FrameHandler {
 public:
  bool Handle(const FrameHeader& h, std::string_view body, std::string* reply) override {
    StatsRequest req;
    if (h.type != MsgType::kStats || !DecodeStats(body, &req)) return false;
    served.fetch_add(1, std::memory_order_relaxed);
    EncodeStatsReply(StatsReply{h.seq, 0, req.count_entries}, h.seq, reply);
    return true;
  }
  std::atomic<int> served{0};
};

// An EchoHandler that notes the CPU each request was served on.
class CpuNotingHandler : public EchoHandler {
 public:
  bool Handle(const FrameHeader& h, std::string_view body, std::string* reply) override {
    last_cpu.store(sched_getcpu());
    return EchoHandler::Handle(h, body, reply);
  }
  std::atomic<int> last_cpu{-1};
};

// The client's ends of a leased channel (the descriptors are duplicated, as a socket would).
struct ClientEnd {
  std::unique_ptr<ShmChannel> channel;
  std::unique_ptr<ShmDoorbell> doorbell;
};

ClientEnd Open(const ShmServer::Lease& lease) {
  std::string error;
  ClientEnd c;
  c.channel = ShmChannel::Open(dup(lease.channel_fd()), &error);
  c.doorbell = ShmDoorbell::Open(dup(lease.doorbell_fd()), &error);
  EXPECT_TRUE(c.channel && c.doorbell) << error;
  return c;
}

// One stats call; the reply's cpu_micros must echo `seq`.
ShmChannel::Wait StatsCall(ClientEnd* c, uint32_t seq, milliseconds timeout = milliseconds(30000)) {
  std::string frame;
  EncodeStats(StatsRequest{false}, seq, &frame);
  c->channel->PostRequest(frame);
  c->doorbell->Ring();
  ShmChannel::Wait w = c->channel->AwaitReply(timeout);
  if (w != ShmChannel::Wait::kReply) return w;
  FrameHeader h;
  EXPECT_EQ(ParseFrameHeader(c->channel->reply_slot(), &h), HeaderError::kNone);
  EXPECT_EQ(h.type, MsgType::kStatsReply);
  EXPECT_EQ(h.seq, seq);
  StatsReply r;
  EXPECT_TRUE(DecodeStatsReply(std::string_view(c->channel->reply_slot() + kFrameHeaderBytes, h.body_bytes), &r));
  EXPECT_EQ(r.cpu_micros, seq);
  return w;
}

TEST(ShmChannelTest, RequestAndReplyGoThroughTheChannel) {
  std::string error;
  auto server_end = ShmChannel::Create(&error);
  ASSERT_TRUE(server_end) << error;
  auto client_end = ShmChannel::Open(dup(server_end->fd()), &error);
  ASSERT_TRUE(client_end) << error;

  std::string request(ShmChannel::kSlotBytes, 'q');  // the largest frame fits
  EncodeStats(StatsRequest{true}, 7, &request);
  std::string buffer;
  FrameHeader h;
  std::string_view body;
  const char* why = nullptr;
  EXPECT_EQ(server_end->TakeRequest(&buffer, &h, &body, &why), ShmChannel::Take::kNone);
  client_end->PostRequest(request);
  ASSERT_EQ(server_end->TakeRequest(&buffer, &h, &body, &why), ShmChannel::Take::kRequest);
  EXPECT_EQ(std::string(body), request.substr(kFrameHeaderBytes));
  EXPECT_EQ(server_end->TakeRequest(&buffer, &h, &body, &why), ShmChannel::Take::kNone) << "taken once only";

  EXPECT_EQ(client_end->AwaitReply(milliseconds(50)), ShmChannel::Wait::kTimeout);
  std::thread replier([&] {
    std::this_thread::sleep_for(milliseconds(50));  // the client is asleep by then
    std::string reply;
    EncodeStatsReply(StatsReply{1, 2, false}, 7, &reply);
    server_end->PostReply(reply);
  });
  EXPECT_EQ(client_end->AwaitReply(milliseconds(30000)), ShmChannel::Wait::kReply);
  replier.join();
  StatsReply r;
  std::string sent;
  EncodeStatsReply(StatsReply{1, 2, false}, 7, &sent);
  EXPECT_TRUE(DecodeStatsReply(
      std::string_view(client_end->reply_slot() + kFrameHeaderBytes, sent.size() - kFrameHeaderBytes), &r));
  EXPECT_EQ(r.entries, 2u);
}

TEST(ShmChannelTest, DropFailsTheWaitingCallAndLaterOnes) {
  std::string error;
  auto server_end = ShmChannel::Create(&error);
  auto client_end = ShmChannel::Open(dup(server_end->fd()), &error);
  ASSERT_TRUE(client_end) << error;
  std::string frame, buffer;
  EncodeInfo(1, &frame);
  client_end->PostRequest(frame);
  FrameHeader h;
  std::string_view body;
  const char* why = nullptr;
  ASSERT_EQ(server_end->TakeRequest(&buffer, &h, &body, &why), ShmChannel::Take::kRequest);
  std::thread dropper([&] {
    std::this_thread::sleep_for(milliseconds(50));
    server_end->Drop();
  });
  EXPECT_EQ(client_end->AwaitReply(milliseconds(30000)), ShmChannel::Wait::kDropped);
  dropper.join();
  client_end->PostRequest(frame);
  EXPECT_EQ(client_end->AwaitReply(milliseconds(10)), ShmChannel::Wait::kDropped);
}

TEST(ShmChannelTest, MalformedRequestsAreNamed) {
  std::string error;
  auto server_end = ShmChannel::Create(&error);
  auto client_end = ShmChannel::Open(dup(server_end->fd()), &error);
  ASSERT_TRUE(client_end) << error;
  std::string frame, buffer;
  FrameHeader h;
  std::string_view body;
  const char* why = nullptr;
  EncodeInfo(1, &frame);
  frame[0] = 'X';
  client_end->PostRequest(frame);
  EXPECT_EQ(server_end->TakeRequest(&buffer, &h, &body, &why), ShmChannel::Take::kMalformed);
  EXPECT_STREQ(why, "bad magic");
  EncodeInfo(2, &frame);
  StoreLE<uint32_t>(&frame[4], kMaxFrameBodyBytes + 1);
  client_end->PostRequest(frame);
  EXPECT_EQ(server_end->TakeRequest(&buffer, &h, &body, &why), ShmChannel::Take::kMalformed);
  EXPECT_STREQ(why, "frame body over the 1 MiB limit");
}

TEST(ShmChannelTest, RefusesMemoryThatIsNotASealedChannel) {
  std::string error;
  // Unsealed: the peer could shrink it and fault whoever maps it.
  int fd = memfd_create("test", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  EXPECT_FALSE(ShmDoorbell::Open(fd, &error));
  EXPECT_NE(error.find("not a sealed shared-memory region"), std::string::npos) << error;

  // Sealed but of the wrong size.
  auto doorbell = ShmDoorbell::Create(&error);
  ASSERT_TRUE(doorbell) << error;
  EXPECT_FALSE(ShmChannel::Open(dup(doorbell->fd()), &error));
  EXPECT_NE(error.find("not a sealed shared-memory region"), std::string::npos) << error;

  // The right size, sealed, but not a channel's layout.
  auto channel = ShmChannel::Create(&error);
  ASSERT_TRUE(channel) << error;
  int writable = dup(channel->fd());
  char* p = static_cast<char*>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, writable, 0));
  ASSERT_NE(p, MAP_FAILED);
  std::memset(p, 0xab, 8);
  munmap(p, 4096);
  EXPECT_FALSE(ShmChannel::Open(writable, &error));
  EXPECT_EQ(error, "the channel's layout is not this build's");
}

TEST(ShmServerTest, ServesConcurrentClientsWithoutLosingWakeUps) {
  // A lost wake-up of either side stalls a call until its deadline: the loops never
  // re-read their channels on their own here, and a call fails after two seconds.
  EchoHandler handler;
  ShmServer server({-1, -1}, &handler, "test", std::chrono::hours(1));
  server.Start();
  constexpr int kClients = 4, kCalls = 5000;
  std::vector<std::thread> clients;
  std::atomic<int> failures{0};
  for (int c = 0; c < kClients; c++) {
    clients.emplace_back([&, c] {
      std::string error;
      auto lease = server.Attach("client " + std::to_string(c), -1, &error);
      ASSERT_TRUE(lease) << error;
      ClientEnd end = Open(*lease);
      for (uint32_t i = 1; i <= kCalls; i++) {
        if (StatsCall(&end, i, milliseconds(2000)) != ShmChannel::Wait::kReply) failures++;
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(handler.served.load(), kClients * kCalls);
  server.Stop();
  server.Wait();
}

TEST(ShmServerTest, AMalformedRequestDropsOnlyItsChannel) {
  EchoHandler handler;
  ShmServer server({-1}, &handler, "test");
  server.Start();
  std::string error;
  auto good_lease = server.Attach("good client", -1, &error);
  auto bad_lease = server.Attach("bad client", -1, &error);
  ASSERT_TRUE(good_lease && bad_lease) << error;
  ClientEnd good = Open(*good_lease), bad = Open(*bad_lease);
  EXPECT_EQ(StatsCall(&good, 1), ShmChannel::Wait::kReply);

  std::string frame;
  EncodeInfo(1, &frame);  // a request the handler refuses
  bad.channel->PostRequest(frame);
  bad.doorbell->Ring();
  EXPECT_EQ(bad.channel->AwaitReply(milliseconds(30000)), ShmChannel::Wait::kDropped);
  EXPECT_EQ(StatsCall(&good, 2), ShmChannel::Wait::kReply);
  // A dropped channel is not served again.
  EXPECT_EQ(StatsCall(&bad, 3), ShmChannel::Wait::kDropped);
  EXPECT_EQ(handler.served.load(), 2);
  server.Stop();
  server.Wait();
}

TEST(ShmServerTest, ADetachedChannelIsNoLongerServed) {
  EchoHandler handler;
  ShmServer server({-1}, &handler, "test");
  server.Start();
  std::string error;
  auto lease = server.Attach("client", -1, &error);
  ASSERT_TRUE(lease) << error;
  ClientEnd end = Open(*lease);
  EXPECT_EQ(StatsCall(&end, 1), ShmChannel::Wait::kReply);
  lease.reset();
  std::this_thread::sleep_for(milliseconds(100));  // the loop's next pass lets go of it
  std::string frame;
  EncodeStats(StatsRequest{false}, 2, &frame);
  end.channel->PostRequest(frame);
  end.doorbell->Ring();
  EXPECT_EQ(end.channel->AwaitReply(milliseconds(200)), ShmChannel::Wait::kTimeout);
  EXPECT_EQ(handler.served.load(), 1);
  server.Stop();
  server.Wait();
}

TEST(ShmServerTest, AChannelIsServedOnALoopOfItsClientsCpu) {
  const std::vector<int> cpus = AllowedCpus();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs";
  CpuNotingHandler handler;
  // Two loops on the first CPU, one on the last: a client of the last CPU gets that loop
  // whatever the round robin would have given it.
  ShmServer server({cpus.front(), cpus.front(), cpus.back()}, &handler, "test");
  server.Start();
  std::string error;
  uint32_t seq = 0;
  for (int cpu : {cpus.back(), cpus.front(), cpus.back(), cpus.back()}) {
    auto lease = server.Attach("client", cpu, &error);
    ASSERT_TRUE(lease) << error;
    ClientEnd end = Open(*lease);
    for (int i = 0; i < 20; i++) {
      ASSERT_EQ(StatsCall(&end, ++seq), ShmChannel::Wait::kReply);
      EXPECT_EQ(handler.last_cpu.load(), cpu);
    }
  }
  // A client on no loop's CPU, or not pinned, is still served.
  for (int cpu : {-1, cpus.back() + 1}) {
    auto lease = server.Attach("client", cpu, &error);
    ASSERT_TRUE(lease) << error;
    ClientEnd end = Open(*lease);
    EXPECT_EQ(StatsCall(&end, ++seq), ShmChannel::Wait::kReply);
  }
  server.Stop();
  server.Wait();
}

TEST(ShmServerTest, ALoopOnACpuOutsideTheMaskServesUnpinned) {
  EchoHandler handler;
  ShmServer server({CPU_SETSIZE - 1}, &handler, "test");
  server.Start();
  std::string error;
  auto lease = server.Attach("client", CPU_SETSIZE - 1, &error);
  ASSERT_TRUE(lease) << error;
  ClientEnd end = Open(*lease);
  EXPECT_EQ(StatsCall(&end, 1), ShmChannel::Wait::kReply);
  server.Stop();
  server.Wait();
}

}  // namespace
}  // namespace deltameta
