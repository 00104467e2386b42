// Tests rpc_client.h against rpc_server.h on each transport: a client gets the fastest one
// it allows (shared memory, Unix socket, TCP), an attach request over TCP is refused, and a
// server that dies fails the waiting call promptly instead of at its deadline.
#include "deltameta/rpc_client.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "deltameta/rpc_server.h"

namespace deltameta {
namespace {

using std::chrono::milliseconds;

// Answers stats requests with cpu_micros = the request's sequence number, after `delay`.
class SlowEchoHandler : public FrameHandler {
 public:
  explicit SlowEchoHandler(milliseconds delay = milliseconds(0)) : delay_(delay) {}
  bool Handle(const FrameHeader& h, std::string_view body, std::string* reply) override {
    StatsRequest req;
    if (h.type != MsgType::kStats || !DecodeStats(body, &req)) return false;
    std::this_thread::sleep_for(delay_);
    EncodeStatsReply(StatsReply{h.seq, 0, false}, h.seq, reply);
    return true;
  }

 private:
  milliseconds delay_;
};

class RpcTransportTest : public ::testing::Test {
 protected:
  void StartServer(FrameHandler* handler) {
    server_ = std::make_unique<RpcServer>(1, handler, "test-server");
    std::string error;
    port_ = server_->Listen("127.0.0.1", 0, &error);
    ASSERT_NE(port_, 0) << error;
    server_->Start();
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }
  std::unique_ptr<RpcClient> Connect(Transport fastest) {
    std::string error;
    auto c = RpcClient::Connect("tcp://127.0.0.1:" + std::to_string(port_), milliseconds(5000), fastest, &error);
    EXPECT_TRUE(c) << error;
    return c;
  }
  // One stats call that must succeed and echo its sequence number.
  void ExpectEcho(RpcClient* c) {
    std::string request, error;
    EncodeStats(StatsRequest{false}, c->NextSeq(), &request);
    std::string_view body;
    ASSERT_TRUE(c->Call(request, MsgType::kStatsReply, &body, &error)) << error;
    StatsReply r;
    ASSERT_TRUE(DecodeStatsReply(body, &r));
    EXPECT_EQ(r.cpu_micros, LoadSeq(request));
  }
  static uint32_t LoadSeq(const std::string& frame) {
    FrameHeader h;
    ParseFrameHeader(frame.data(), &h);
    return h.seq;
  }

  std::unique_ptr<RpcServer> server_;
  uint16_t port_ = 0;
};

TEST_F(RpcTransportTest, EachClientGetsTheFastestTransportItAllows) {
  SlowEchoHandler handler;
  StartServer(&handler);
  for (Transport t : {Transport::kShm, Transport::kUnix, Transport::kTcp}) {
    auto c = Connect(t);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->transport(), t) << TransportName(t);
    for (int i = 0; i < 100; i++) ExpectEcho(c.get());
  }
}

TEST_F(RpcTransportTest, AttachOverTcpIsRefused) {
  SlowEchoHandler handler;
  StartServer(&handler);
  auto c = Connect(Transport::kTcp);
  ASSERT_TRUE(c);
  std::string request, error;
  EncodeAttachShm(-1, c->NextSeq(), &request);
  std::string_view body;
  ASSERT_TRUE(c->Call(request, MsgType::kAttachShmReply, &body, &error)) << error;
  OpStatus status = OpStatus::kOk;
  ASSERT_TRUE(DecodeAttachShmReply(body, &status));
  EXPECT_EQ(status, OpStatus::kUnsupported);
  ExpectEcho(c.get());  // and the connection goes on
}

TEST_F(RpcTransportTest, AServerThatDiesFailsTheWaitingCallPromptly) {
  int port_pipe[2];
  ASSERT_EQ(pipe(port_pipe), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the server: it answers after ten seconds, but is killed first
    SlowEchoHandler handler(milliseconds(10000));
    RpcServer server(1, &handler, "test-server");
    std::string error;
    uint16_t port = server.Listen("127.0.0.1", 0, &error);
    server.Start();
    if (write(port_pipe[1], &port, sizeof(port)) != sizeof(port)) _exit(1);
    server.Wait();
    _exit(0);
  }
  ASSERT_EQ(read(port_pipe[0], &port_, sizeof(port_)), static_cast<ssize_t>(sizeof(port_)));
  close(port_pipe[0]);
  close(port_pipe[1]);
  ASSERT_NE(port_, 0);
  auto c = Connect(Transport::kShm);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->transport(), Transport::kShm);
  std::thread killer([child] {
    std::this_thread::sleep_for(milliseconds(100));  // the call below is waiting by then
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
  });
  std::string request, error;
  EncodeStats(StatsRequest{false}, c->NextSeq(), &request);
  std::string_view body;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(c->Call(request, MsgType::kStatsReply, &body, &error));
  killer.join();
  EXPECT_EQ(error, "server tcp://127.0.0.1:" + std::to_string(port_) + " closed the connection");
  // The call's deadline is 5 s; the server's end closing is noticed within a slice of it.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(4000));
}

}  // namespace
}  // namespace deltameta
