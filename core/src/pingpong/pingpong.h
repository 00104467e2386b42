// A ping-pong of one client-server transport: the ceiling a per-operation phase (every
// create or lstat one RPC) cannot beat on this machine. Server and client processes are
// placed as the tools place theirs (cpu_placement.h): `servers` server processes with
// `threads` loops each, `clients` client processes, each calling every server in turn,
// one request in flight. The frames are an lstat request and its stat reply (wire.h), so
// the bytes are those of an lstat; the server answers without a store.
//
//   shm, unix, tcp  ours: RpcClient to RpcServer (rpc_client.h, rpc_server.h) with the
//                   `--rpc_transport` the name says (shm is the tools' default, auto)
//   udp             the original prototype's pattern (udp_pingpong.h): one UDP socket per
//                   server shared by its threads, each polling it; connected client sockets
//
// Besides calls per second it measures, over the timed calls only, CPU time and context
// switches per call of the clients and of the servers (every thread), which stay
// comparable on a busy machine where throughput does not.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace deltameta {

enum class PingPongTransport { kShm, kUnix, kTcp, kUdp };
// "shm", "unix", "tcp" or "udp".
const char* PingPongTransportName(PingPongTransport t);
bool ParsePingPongTransport(const std::string& name, PingPongTransport* t);

struct PingPongOptions {
  PingPongTransport transport = PingPongTransport::kShm;
  int clients = 4;
  int servers = 2;
  int threads = 2;           // per server: RpcServer's `threads` (as --rpc_threads), or UDP threads
  uint64_t calls = 20000;    // timed calls per client, spread over the servers in turn
  uint64_t warmup = 200;     // untimed calls per client before the clients start together
  bool cpu_affinity = true;  // pin as the tools do with --cpu_affinity=1
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};  // connecting, and each call
};

// Per call: the timed calls' totals divided by their number.
struct PingPongResult {
  uint64_t calls = 0;               // all clients' timed calls
  double seconds = 0;               // first client's start to the last one's end
  double mops = 0;                  // calls / seconds / 1e6
  double client_cpu_us = 0;         // client processes' CPU time per call
  double server_cpu_us = 0;         // server processes' CPU time per call, all threads
  double client_switches = 0;       // voluntary context switches of the clients per call (their sleeps)
  double server_switches = 0;       // voluntary context switches of the servers per call
  double involuntary_switches = 0;  // preemptions of clients and servers together per call
};

// Runs one ping-pong; false with a one-line *error if a process failed or a call timed out.
// Every process it started has ended when it returns.
bool RunPingPong(const PingPongOptions& options, PingPongResult* result, std::string* error);

}  // namespace deltameta
