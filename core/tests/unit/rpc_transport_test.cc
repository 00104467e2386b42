// Tests rpc_client.h against rpc_server.h on each transport: a client gets the fastest one
// it allows (shared memory, Unix socket, TCP), an attach request over TCP is refused, and a
// server that dies fails the waiting call promptly instead of at its deadline. Every
// connection starts with the job's secret: a wrong or missing one fails Connect with one
// line, and a connection that starts with anything else is dropped. Partial frames and
// idle connections time out; a channel in use is not idle.
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include <gtest/gtest.h>

#include "rpc/rpc_client.h"
#include "rpc/rpc_server.h"
#include "rpc/secret.h"
#include "temp_dir.h"

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
  void StartServer(FrameHandler* handler, const RpcLimits& limits = RpcLimits()) {
    server_ = std::make_unique<RpcServer>(1, handler, "test-server", std::vector<int>{}, limits);
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

  // A plain TCP socket to the server; -1 on failure.
  int RawConnect() {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port_);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
      close(fd);
      return -1;
    }
    timeval tv{10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    return fd;
  }
  static void SendAll(int fd, const std::string& data) {
    ASSERT_EQ(send(fd, data.data(), data.size(), MSG_NOSIGNAL), static_cast<ssize_t>(data.size()));
  }
  // Presents the job's secret on a raw socket and checks the server accepted it.
  static void RawHello(int fd) {
    std::string secret, error;
    ASSERT_TRUE(ReadSecret(SecretFilePath(&error), &secret, &error)) << error;
    std::string hello;
    EncodeHello(secret, 1, &hello);
    SendAll(fd, hello);
    char reply[kFrameHeaderBytes + 1];
    ASSERT_EQ(recv(fd, reply, sizeof(reply), MSG_WAITALL), static_cast<ssize_t>(sizeof(reply)));
    OpStatus status = OpStatus::kIoError;
    ASSERT_TRUE(DecodeHelloReply(std::string_view(reply + kFrameHeaderBytes, 1), &status));
    ASSERT_EQ(status, OpStatus::kOk);
  }
  // Waits until the server closes `fd`; returns how long after `since` that was.
  static int64_t AwaitClose(int fd, std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now()) {
    char c;
    EXPECT_EQ(recv(fd, &c, 1, 0), 0) << "the server should have closed the connection, not " << std::strerror(errno);
    return std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - since).count();
  }

  std::unique_ptr<RpcServer> server_;
  uint16_t port_ = 0;
};

// Points DELTAMETA_SECRET_FILE somewhere for one test.
class SecretFileScope {
 public:
  explicit SecretFileScope(const std::string& path) {
    if (const char* old = getenv(kSecretFileEnv)) old_ = old, had_ = true;
    setenv(kSecretFileEnv, path.c_str(), 1);
  }
  ~SecretFileScope() {
    if (had_)
      setenv(kSecretFileEnv, old_.c_str(), 1);
    else
      unsetenv(kSecretFileEnv);
  }

 private:
  std::string old_;
  bool had_ = false;
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

TEST_F(RpcTransportTest, AWrongSecretIsRefusedWithOneLine) {
  TempDir tmp;
  SlowEchoHandler handler;
  {
    SecretFileScope server_file(tmp.path() + "/server-secret");
    StartServer(&handler);  // makes its secret
  }
  const std::string other = tmp.path() + "/other-secret";
  std::string secret, error;
  ASSERT_TRUE(ReadOrCreateSecret(other, &secret, nullptr, &error)) << error;
  SecretFileScope client_file(other);
  for (Transport t : {Transport::kShm, Transport::kUnix, Transport::kTcp}) {
    const std::string address = "tcp://127.0.0.1:" + std::to_string(port_);
    EXPECT_FALSE(RpcClient::Connect(address, milliseconds(5000), t, &error));
    EXPECT_EQ(error, "server at " + address + " refused the secret in " + other +
                         ": the server runs as another user or with another DELTAMETA_SECRET_FILE");
  }
}

TEST_F(RpcTransportTest, AClientWithoutTheSecretFileNamesIt) {
  TempDir tmp;
  SlowEchoHandler handler;
  StartServer(&handler);
  SecretFileScope client_file(tmp.path() + "/missing");
  std::string error;
  EXPECT_FALSE(
      RpcClient::Connect("tcp://127.0.0.1:" + std::to_string(port_), milliseconds(5000), Transport::kShm, &error));
  EXPECT_EQ(error.find("no secret file " + tmp.path() + "/missing: "), 0u) << error;
}

TEST_F(RpcTransportTest, AConnectionThatDoesNotStartWithAHelloIsDropped) {
  SlowEchoHandler handler;
  StartServer(&handler);
  std::string stats, attach;
  EncodeStats(StatsRequest{false}, 1, &stats);
  EncodeAttachShm(-1, 1, &attach);
  for (const std::string& first : {stats, attach, std::string(stats, 0, 8)}) {
    int fd = RawConnect();
    ASSERT_GE(fd, 0);
    SendAll(fd, first);
    if (first.size() < kFrameHeaderBytes) SendAll(fd, std::string(8, '\0'));  // a header announcing a stats frame...
    AwaitClose(fd);
    close(fd);
  }
  auto c = Connect(Transport::kTcp);  // and the server goes on
  ASSERT_TRUE(c);
  ExpectEcho(c.get());
}

TEST_F(RpcTransportTest, PartialFramesAndIdleConnectionsTimeOut) {
  SlowEchoHandler handler;
  StartServer(&handler, RpcLimits{milliseconds(400), milliseconds(1500), size_t{1} << 20});
  std::string stats;
  EncodeStats(StatsRequest{false}, 2, &stats);

  using Clock = std::chrono::steady_clock;
  const auto silent_since = Clock::now();
  int silent = RawConnect();   // never says hello: closed after the frame timeout
  int partial = RawConnect();  // says hello, then starts a frame it never finishes
  int idle = RawConnect();     // says hello, then nothing: closed after the idle timeout
  ASSERT_GE(silent, 0);
  ASSERT_GE(partial, 0);
  ASSERT_GE(idle, 0);
  RawHello(partial);
  RawHello(idle);
  const auto idle_since = Clock::now();
  SendAll(partial, stats.substr(0, 5));
  const auto partial_since = Clock::now();
  auto shm = Connect(Transport::kShm);  // in use over its channel: never idle
  ASSERT_TRUE(shm);
  ASSERT_EQ(shm->transport(), Transport::kShm);
  auto quiet = Connect(Transport::kShm);  // attached but unused: idle
  ASSERT_TRUE(quiet);

  std::thread busy([&] {
    for (int i = 0; i < 25; i++) {
      ExpectEcho(shm.get());
      std::this_thread::sleep_for(milliseconds(100));
    }
  });
  const int64_t silent_ms = AwaitClose(silent, silent_since), partial_ms = AwaitClose(partial, partial_since);
  EXPECT_GE(silent_ms, 350);
  EXPECT_LT(silent_ms, 1200);
  EXPECT_GE(partial_ms, 350);
  EXPECT_LT(partial_ms, 1200);
  const int64_t idle_ms = AwaitClose(idle, idle_since);
  EXPECT_GE(idle_ms, 1450);
  EXPECT_LT(idle_ms, 2600);
  busy.join();  // 2.5 s of calls over the channel, all answered
  ExpectEcho(shm.get());
  std::string request, error;
  EncodeStats(StatsRequest{false}, quiet->NextSeq(), &request);
  std::string_view body;
  EXPECT_FALSE(quiet->Call(request, MsgType::kStatsReply, &body, &error));
  EXPECT_NE(error.find("closed the connection"), std::string::npos) << error;
  close(silent);
  close(partial);
  close(idle);
}

}  // namespace
}  // namespace deltameta
