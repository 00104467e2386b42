// deltameta_pingpong: the ceiling of one client-server transport on this machine, with the
// tools' process placement (the ping-pong is pingpong/pingpong.h). Prints one line: calls
// per second and, per call, the clients' and servers' CPU time and context switches;
// --json=FILE also writes them as a JSON document (deltameta.pingpong/1).
// core/bench/side_by_side.py runs it beside each per-operation phase.
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "deltameta/flags.h"
#include "pingpong/pingpong.h"

namespace dm = deltameta;

namespace {

constexpr char kTool[] = "deltameta_pingpong";

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "%s: error: %s\n", kTool, message.c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::string transport = "shm", json;
  int64_t clients = 4, servers = 2, threads = 2, calls = 20000, warmup = 200, timeout = 30;
  bool cpu_affinity = true;
  dm::FlagSet set(kTool,
                  "Ping-pong of one transport: --clients processes each call --servers server processes in turn,\n"
                  "one lstat-sized request in flight, answered without a store. A measurement: the ceiling of a\n"
                  "per-operation phase on this machine.");
  set.String("transport", &transport,
             "shm, unix or tcp (ours: RpcClient to RpcServer, as --rpc_transport=auto, unix, tcp), or udp (the "
             "original prototype's pattern)");
  set.Int("clients", &clients, 1, 1024, "client processes (the client job's ranks)");
  set.Int("servers", &servers, 1, 1024, "server processes (the server job's ranks)");
  set.Int("threads", &threads, 1, 64, "loops per server (deltameta_server's --rpc_threads), or UDP threads");
  set.Int("calls", &calls, 1, int64_t{1} << 40, "timed calls per client");
  set.Int("warmup", &warmup, 0, int64_t{1} << 40, "untimed calls per client first");
  set.Bool("cpu_affinity", &cpu_affinity,
           "pin clients and shared-memory loops as the tools' --cpu_affinity=1 (doc/transports.md)");
  set.Int("timeout", &timeout, 1, 3600, "seconds for connecting and for each call");
  set.String("json", &json, "also write the result to this file as a JSON document");
  bool help = false;
  const dm::Status parsed = set.Parse(argc, argv, &help);
  if (help) {
    std::printf("%s", set.Usage().c_str());
    return 0;
  }
  if (!parsed.ok()) return Fail(2, parsed.ToString());
  dm::PingPongOptions o;
  if (!dm::ParsePingPongTransport(transport, &o.transport)) {
    return Fail(2, "--transport=" + transport + ": expected shm, unix, tcp or udp");
  }
  o.clients = static_cast<int>(clients);
  o.servers = static_cast<int>(servers);
  o.threads = static_cast<int>(threads);
  o.calls = static_cast<uint64_t>(calls);
  o.warmup = static_cast<uint64_t>(warmup);
  o.cpu_affinity = cpu_affinity;
  o.timeout = std::chrono::seconds(timeout);

  dm::PingPongResult r;
  std::string error;
  if (!dm::RunPingPong(o, &r, &error)) return Fail(1, error);
  std::printf(
      "%s: %d clients x %d servers (%d threads each, cpu_affinity %d): %llu calls in %.3f s, %.4f Mop/s; per call: "
      "CPU us client %.2f server %.2f, voluntary switches client %.2f server %.2f, involuntary %.3f\n",
      transport.c_str(), o.clients, o.servers, o.threads, cpu_affinity ? 1 : 0,
      static_cast<unsigned long long>(r.calls), r.seconds, r.mops, r.client_cpu_us, r.server_cpu_us, r.client_switches,
      r.server_switches, r.involuntary_switches);
  if (!json.empty()) {
    nlohmann::json doc = {{"schema", "deltameta.pingpong/1"},
                          {"flags", set.Values()},
                          {"calls", r.calls},
                          {"seconds", r.seconds},
                          {"mops", r.mops},
                          {"per_call",
                           {{"client_cpu_us", r.client_cpu_us},
                            {"server_cpu_us", r.server_cpu_us},
                            {"client_voluntary_switches", r.client_switches},
                            {"server_voluntary_switches", r.server_switches},
                            {"involuntary_switches", r.involuntary_switches}}}};
    std::ofstream out(json);
    out << doc.dump(1) << "\n";
    if (!out.flush()) return Fail(1, "cannot write " + json);
  }
  return 0;
}
