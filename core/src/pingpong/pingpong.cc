// The transport ping-pong's processes and measures: see pingpong.h. The calling process
// forks the servers, then the clients, and only coordinates them over pipes: each server
// reports its port; each client connects to every server, makes its warm-up calls and
// reports ready; the clients start together when the "go" pipe closes, report their
// timed window and wait for the "end" pipe to close, so that the servers' and clients'
// CPU time and context switches can be read from /proc over exactly the timed calls.
#include "pingpong/pingpong.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "format/wire.h"
#include "pingpong/ping_handler.h"
#include "pingpong/process_usage.h"
#include "pingpong/udp_pingpong.h"
#include "rpc/rpc_client.h"
#include "rpc/rpc_server.h"
#include "rpc/transport.h"
#include "util/cpu_placement.h"

namespace deltameta {
namespace {

constexpr char kTool[] = "deltameta_pingpong";

// What a client reports after its timed calls (one write, atomic on a pipe).
struct Window {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

int64_t NowNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t{t.tv_sec} * 1000000000 + t.tv_nsec;
}

struct Pipe {
  int read = -1, write = -1;
  bool Open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read = fds[0];
    write = fds[1];
    return true;
  }
  void CloseRead() {
    if (read >= 0) close(read);
    read = -1;
  }
  void CloseWrite() {
    if (write >= 0) close(write);
    write = -1;
  }
};

bool WriteAll(int fd, const void* data, size_t bytes) { return write(fd, data, bytes) == static_cast<ssize_t>(bytes); }

// Reads exactly `bytes`; false on end of file (the writers are gone) or an error.
bool ReadAll(int fd, void* data, size_t bytes) {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    ssize_t got = read(fd, p, bytes);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    bytes -= static_cast<size_t>(got);
  }
  return true;
}

// Blocks until every writer of `fd` has closed it.
void AwaitClose(int fd) {
  char c;
  while (read(fd, &c, 1) > 0 || errno == EINTR) {
  }
}

// A child's one line on stderr, then its end.
[[noreturn]] void ChildFails(const std::string& who, const std::string& why) {
  std::fprintf(stderr, "%s[%s]: %s\n", kTool, who.c_str(), why.c_str());
  std::fflush(stderr);
  _exit(1);
}

// A child ends when the benchmark does, even if the benchmark is killed.
void DieWithParent(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);
}

[[noreturn]] void ServerMain(const PingPongOptions& o, int index, int port_fd) {
  const std::string who = "server " + std::to_string(index);
  std::string error;
  uint16_t port = 0;
  if (o.transport == PingPongTransport::kUdp) {
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigaddset(&term, SIGINT);
    pthread_sigmask(SIG_BLOCK, &term, nullptr);  // the serving threads inherit it
    UdpEchoServer server;
    if (!server.Bind(&error)) ChildFails(who, error);
    port = server.port();
    WriteAll(port_fd, &port, sizeof(port));
    std::atomic<bool> stop{false};
    std::thread serving([&] { server.Serve(o.threads, stop); });
    int sig = 0;
    sigwait(&term, &sig);
    stop = true;
    serving.join();
    _exit(0);
  }
  std::vector<int> loop_cpus;  // as deltameta_server's: host rank r, loop i on slot r x threads + i
  if (o.cpu_affinity) {
    const std::vector<int> cpus = AllowedCpus();
    for (int i = 0; i < o.threads; i++) loop_cpus.push_back(CpuForSlot(cpus, index * o.threads + i));
  }
  PingHandler handler;
  RpcServer rpc(o.threads, &handler, std::string(kTool) + "[" + who + "]", loop_cpus);
  port = rpc.Listen("127.0.0.1", 0, &error);
  if (port == 0) ChildFails(who, error);
  WriteAll(port_fd, &port, sizeof(port));
  rpc.Start();  // serves until SIGTERM
  rpc.Wait();
  _exit(0);
}

// One client's connections and its call, whatever the transport.
class Caller {
 public:
  bool Connect(const PingPongOptions& o, const std::vector<uint16_t>& ports, std::string* error) {
    o_ = &o;
    for (uint16_t port : ports) {
      if (o.transport == PingPongTransport::kUdp) {
        udp_.push_back(std::make_unique<UdpCaller>());
        if (!udp_.back()->Connect(port, error)) return false;
        continue;
      }
      const Transport t = o.transport == PingPongTransport::kShm    ? Transport::kShm
                          : o.transport == PingPongTransport::kUnix ? Transport::kUnix
                                                                    : Transport::kTcp;
      rpc_.push_back(RpcClient::Connect("127.0.0.1:" + std::to_string(port), o.timeout, t, error));
      if (!rpc_.back()) return false;
      if (rpc_.back()->transport() != t) {  // e.g. no shared memory here: the ceiling would be another's
        *error = std::string("connected over ") + TransportName(rpc_.back()->transport()) + ", not " +
                 TransportName(t) + ", to " + rpc_.back()->address();
        return false;
      }
    }
    return true;
  }

  // One lstat-sized call to server `s`.
  bool Call(size_t s, std::string* error) {
    if (!udp_.empty()) {
      EncodeLstat(request_, ++seq_, &frame_);
      return udp_[s]->Call(frame_, seq_, o_->timeout, error);
    }
    EncodeLstat(request_, rpc_[s]->NextSeq(), &frame_);
    std::string_view body;
    StatReply reply;
    if (!rpc_[s]->Call(frame_, MsgType::kStatReply, &body, error)) return false;
    if (!DecodeStatReply(body, &reply)) {
      *error = "malformed stat reply from " + rpc_[s]->address();
      return false;
    }
    return true;
  }

  void Name(int index) { request_.name = "f" + std::to_string(index) + ".1e240"; }

 private:
  const PingPongOptions* o_ = nullptr;
  std::vector<std::unique_ptr<RpcClient>> rpc_;
  std::vector<std::unique_ptr<UdpCaller>> udp_;
  LstatRequest request_;
  std::string frame_;
  uint32_t seq_ = 0;
};

struct ClientPipes {
  int ready, go, window, end;
};

[[noreturn]] void ClientMain(const PingPongOptions& o, int index, const std::vector<uint16_t>& ports,
                             const ClientPipes& p) {
  const std::string who = "client " + std::to_string(index);
  if (o.cpu_affinity) PinCallingThread(CpuForSlot(AllowedCpus(), index));  // as deltameta_client's host rank
  std::string error;
  Caller caller;
  caller.Name(index);
  if (!caller.Connect(o, ports, &error)) ChildFails(who, error);
  const size_t servers = ports.size();
  for (uint64_t i = 0; i < o.warmup; i++) {
    if (!caller.Call(i % servers, &error)) ChildFails(who, error);
  }
  const char ready = 1;
  WriteAll(p.ready, &ready, 1);
  AwaitClose(p.go);
  Window w;
  w.start_ns = NowNs();
  for (uint64_t i = 0; i < o.calls; i++) {
    if (!caller.Call(static_cast<size_t>((i + static_cast<uint64_t>(index)) % servers), &error)) {
      ChildFails(who, error);
    }
  }
  w.end_ns = NowNs();
  WriteAll(p.window, &w, sizeof(w));
  AwaitClose(p.end);
  _exit(0);
}

// The children, killed and reaped on any failure.
class Children {
 public:
  ~Children() {
    for (pid_t pid : all_) kill(pid, SIGKILL);
    for (pid_t pid : all_) waitpid(pid, nullptr, 0);
  }
  void Add(pid_t pid) { all_.push_back(pid); }
  // Waits for `pid` to end; false with *error unless it exited 0.
  bool Reap(pid_t pid, const std::string& who, std::string* error) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    all_.erase(std::remove(all_.begin(), all_.end(), pid), all_.end());
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
    *error = who + (WIFSIGNALED(status) ? " was killed by signal " + std::to_string(WTERMSIG(status))
                                        : " exited with status " + std::to_string(WEXITSTATUS(status)));
    return false;
  }

 private:
  std::vector<pid_t> all_;
};

}  // namespace

const char* PingPongTransportName(PingPongTransport t) {
  switch (t) {
    case PingPongTransport::kShm:
      return "shm";
    case PingPongTransport::kUnix:
      return "unix";
    case PingPongTransport::kTcp:
      return "tcp";
    case PingPongTransport::kUdp:
      return "udp";
  }
  return "?";
}

bool ParsePingPongTransport(const std::string& name, PingPongTransport* t) {
  for (PingPongTransport c :
       {PingPongTransport::kShm, PingPongTransport::kUnix, PingPongTransport::kTcp, PingPongTransport::kUdp}) {
    if (name == PingPongTransportName(c)) {
      *t = c;
      return true;
    }
  }
  return false;
}

bool RunPingPong(const PingPongOptions& o, PingPongResult* result, std::string* error) {
  const pid_t self = getpid();
  Children children;
  std::fflush(stdout);
  std::fflush(stderr);

  std::vector<pid_t> servers;
  std::vector<uint16_t> ports;
  for (int s = 0; s < o.servers; s++) {
    Pipe port;
    if (!port.Open()) return (*error = std::string("pipe: ") + std::strerror(errno), false);
    const pid_t pid = fork();
    if (pid == 0) {
      DieWithParent(self);
      port.CloseRead();
      ServerMain(o, s, port.write);
    }
    port.CloseWrite();
    if (pid > 0) children.Add(pid);
    uint16_t got = 0;
    const bool ok = pid > 0 && ReadAll(port.read, &got, sizeof(got));
    port.CloseRead();
    if (!ok) {
      *error = pid < 0 ? std::string("fork: ") + std::strerror(errno) : "server " + std::to_string(s) + " failed";
      return false;
    }
    servers.push_back(pid);
    ports.push_back(got);
  }

  Pipe ready, go, window, end;
  if (!ready.Open() || !go.Open() || !window.Open() || !end.Open()) {
    return (*error = std::string("pipe: ") + std::strerror(errno), false);
  }
  std::vector<pid_t> clients;
  for (int c = 0; c < o.clients; c++) {
    const pid_t pid = fork();
    if (pid == 0) {
      DieWithParent(self);
      ready.CloseRead();
      go.CloseWrite();
      window.CloseRead();
      end.CloseWrite();
      ClientMain(o, c, ports, ClientPipes{ready.write, go.read, window.write, end.read});
    }
    if (pid < 0) return (*error = std::string("fork: ") + std::strerror(errno), false);
    children.Add(pid);
    clients.push_back(pid);
  }
  ready.CloseWrite();
  go.CloseRead();
  window.CloseWrite();
  end.CloseRead();

  auto failed_client = [&](const char* when) {
    for (size_t c = 0; c < clients.size(); c++) {
      int status = 0;
      if (waitpid(clients[c], &status, WNOHANG) == clients[c]) {
        *error = "client " + std::to_string(c) + " failed " + when;
        return false;
      }
    }
    *error = std::string("a client failed ") + when;
    return false;
  };
  for (int c = 0; c < o.clients; c++) {
    char byte;
    if (!ReadAll(ready.read, &byte, 1)) return failed_client("before its timed calls");
  }
  const ProcessUsage clients0 = SumProcessUsage(clients), servers0 = SumProcessUsage(servers);
  go.CloseWrite();  // the clients start together
  int64_t start = INT64_MAX, stop = 0;
  for (int c = 0; c < o.clients; c++) {
    Window w;
    if (!ReadAll(window.read, &w, sizeof(w))) return failed_client("during its timed calls");
    start = std::min(start, w.start_ns);
    stop = std::max(stop, w.end_ns);
  }
  const ProcessUsage clients1 = SumProcessUsage(clients), servers1 = SumProcessUsage(servers);
  end.CloseWrite();
  for (size_t c = 0; c < clients.size(); c++) {
    if (!children.Reap(clients[c], "client " + std::to_string(c), error)) return false;
  }
  for (size_t s = 0; s < servers.size(); s++) {
    kill(servers[s], SIGTERM);
    if (!children.Reap(servers[s], "server " + std::to_string(s), error)) return false;
  }

  const double calls = static_cast<double>(o.calls) * o.clients;
  result->calls = o.calls * static_cast<uint64_t>(o.clients);
  result->seconds = static_cast<double>(stop - start) / 1e9;
  result->mops = result->seconds > 0 ? calls / result->seconds / 1e6 : 0;
  result->client_cpu_us = (clients1.cpu_s - clients0.cpu_s) * 1e6 / calls;
  result->server_cpu_us = (servers1.cpu_s - servers0.cpu_s) * 1e6 / calls;
  result->client_switches = static_cast<double>(clients1.voluntary - clients0.voluntary) / calls;
  result->server_switches = static_cast<double>(servers1.voluntary - servers0.voluntary) / calls;
  result->involuntary_switches =
      static_cast<double>(clients1.involuntary - clients0.involuntary + servers1.involuntary - servers0.involuntary) /
      calls;
  return true;
}

}  // namespace deltameta
