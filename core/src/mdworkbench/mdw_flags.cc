// The MD-Workbench tool's command line: see mdw_flags.h.
#include "mdworkbench/mdw_flags.h"

#include <map>

#include "deltameta/key.h"
#include "format/wire.h"

namespace deltameta {
namespace {

// The largest object a data create can carry in one frame.
constexpr int64_t kMaxFrameObjectBytes = kMaxFrameBodyBytes - 8 - 2 - kMaxNameBytes - kMaxEncodedStatBytes - 4;

const std::map<std::string, std::string>& ShortOptions() {
  static const std::map<std::string, std::string> m = {
      {"D", "dset-count"},          {"P", "precreate-per-set"}, {"I", "obj-per-proc"},
      {"S", "object-size"},         {"R", "iterations"},        {"O", "offset"},
      {"L", "latency-file-prefix"}, {"i", "interface"},         {"w", "stonewall-timer"}};
  return m;
}

bool IsBooleanOption(const std::string& name) {
  return name == "run-precreate" || name == "run-benchmark" || name == "run-cleanup" || name == "process-reports" ||
         name == "stonewall-wear-out";
}

}  // namespace

void RegisterMdwFlags(FlagSet* f, MdwFlags* m) {
  f->String("interface", &m->interface,
            "-i: posix (a directory tree under --root), indexfs (deltameta_server), "
            "deltafs (-1 into the ranks' own stores under --root, -2 against read-only servers) or "
            "cephfs (posix's tree under --root in the CephFS of CEPH_CONF, through libcephfs)");
  f->String("root", &m->root,
            "posix: the tree's root directory; cephfs: its absolute path in CephFS; deltafs -1: the ranks' store "
            "root (<root>/r<rank>)");
  f->String("cephfs_name", &m->cephfs_name, "cephfs: the file system (empty: the cluster's default)");
  f->String("info_svr_uri", &m->info_svr_uri, "indexfs, deltafs -2: the servers' info endpoint");
  f->String("rpc_transport", &m->rpc_transport, "auto, unix or tcp (as deltameta_client's)");
  f->Int("rpc_timeout", &m->rpc_timeout, 1, 3600,
         "seconds to wait for a server (connect and each reply; cephfs: the mount and each request)");
  f->Bool("cpu_affinity", &m->cpu_affinity, "with servers: pin each rank to one CPU of its host, as deltameta_client");
  f->Int("dset-count", &m->dset_count, 1, 1 << 20, "-D: data sets per rank");
  f->Int("precreate-per-set", &m->precreate_per_set, 1, int64_t{1} << 32, "-P: objects precreated per data set");
  f->Int("obj-per-proc", &m->obj_per_proc, 1, int64_t{1} << 32,
         "-I: objects per data set each iteration handles (stat, read, delete, create)");
  f->Int("object-size", &m->object_size, 0, int64_t{1} << 30, "-S: bytes per object");
  f->Int("iterations", &m->iterations, 1, 1 << 20, "-R: iterations of the benchmark phase");
  f->Int("offset", &m->offset, 0, int64_t{1} << 31,
         "-O: rank offset; rank r works on the data sets of rank (r + O) mod ranks in the benchmark");
  f->Bool("run-precreate", &m->run_precreate, "-1: run the precreate phase (without -1/-2/-3: all three)");
  f->Bool("run-benchmark", &m->run_benchmark, "-2: run the benchmark phase");
  f->Bool("run-cleanup", &m->run_cleanup, "-3: run the cleanup phase");
  f->Int("stonewall-timer", &m->stonewall_timer, 0, int64_t{1} << 31,
         "-w: seconds after which each benchmark iteration stops at the end of its current position (0: none); "
         "without -W each rank stops on its own");
  f->Bool("stonewall-wear-out", &m->stonewall_wear_out,
          "-W: with -w, every rank then runs as many positions as the rank that ran the most");
  f->Bool("process-reports", &m->process_reports, "print and record a result line per rank");
  f->String("latency-file-prefix", &m->latency_file_prefix,
            "-L: write every operation's latency to <prefix>-<phase>-<rank>.csv (op,start_us,latency_us)");
  f->String("json", &m->json, "append one JSON document per phase to this file (rank 0)");
  f->String("output", &m->output,
            "result lines on stdout: deltameta (our table), mdworkbench (MD-Workbench's own lines) or both");
}

ObjectSpace MdwFlags::Space(uint32_t ranks) const {
  ObjectSpace s;
  s.ranks = ranks;
  s.data_sets = static_cast<uint32_t>(dset_count);
  s.precreate = static_cast<uint64_t>(precreate_per_set);
  s.per_iteration = static_cast<uint64_t>(obj_per_proc);
  s.object_size = static_cast<uint64_t>(object_size);
  s.iterations = static_cast<uint64_t>(iterations);
  s.offset = static_cast<uint64_t>(offset);
  return s;
}

std::vector<std::string> NormalizeMdwArgs(int argc, char** argv) {
  static const std::map<std::string, std::string> aliases = {
      {"data-sets", "dset-count"}, {"root-dir", "root"}, {"latency", "latency-file-prefix"}};
  std::vector<std::string> out;
  if (argc > 0) out.emplace_back(argv[0]);
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg == "-1" || arg == "-2" || arg == "-3") {
      const char* phase[] = {"precreate", "benchmark", "cleanup"};
      out.push_back(std::string("--run-") + phase[arg[1] - '1'] + "=1");
    } else if (arg == "-W") {
      out.emplace_back("--stonewall-wear-out=1");
    } else if (arg.size() >= 2 && arg[0] == '-' && arg[1] != '-' && ShortOptions().count(arg.substr(1, 1))) {
      const std::string& name = ShortOptions().at(arg.substr(1, 1));
      if (arg.size() == 2 && i + 1 < argc) {
        out.push_back("--" + name + "=" + argv[++i]);
      } else if (arg.size() > 2 && arg[2] == '=') {
        out.push_back("--" + name + "=" + arg.substr(3));
      } else {
        out.push_back(arg);  // malformed: FlagSet says so
      }
    } else if (arg.rfind("--", 0) == 0 && arg.size() > 2) {
      const size_t eq = arg.find('=');
      std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      auto alias = aliases.find(name);
      if (alias != aliases.end()) name = alias->second;
      if (eq != std::string::npos) {
        out.push_back("--" + name + arg.substr(eq));
      } else {
        out.push_back("--" + name + (IsBooleanOption(name) ? "=1" : ""));
      }
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

std::string CheckMdwFlags(const MdwFlags& f) {
  const std::string& i = f.interface;
  if (i != "posix" && i != "indexfs" && i != "deltafs" && i != "cephfs")
    return "--interface must be posix, indexfs, deltafs or cephfs";
  if (f.rpc_transport != "auto" && f.rpc_transport != "unix" && f.rpc_transport != "tcp")
    return "--rpc_transport must be auto, unix or tcp";
  if (i == "posix" && f.root.empty()) return "--interface=posix needs --root (the directory tree's root)";
  if (i == "cephfs" && (f.root.size() < 2 || f.root[0] != '/'))
    return "--interface=cephfs needs --root, an absolute path below / in CephFS (e.g. /mdworkbench)";
  if (f.output != "deltameta" && f.output != "mdworkbench" && f.output != "both")
    return "--output must be deltameta, mdworkbench or both";
  if (f.stonewall_wear_out && f.stonewall_timer == 0)
    return "-W (--stonewall-wear-out) needs -w SECONDS (--stonewall-timer), the time after which it starts";
  // Without a stonewall the cleanup knows where each data set's objects start (R * I);
  // with one only the job that ran the benchmark does. DeltaFS replaces nothing.
  if (f.stonewall_timer > 0 && i != "deltafs" && f.benchmark() && !f.cleanup())
    return "-w (--stonewall-timer) with the benchmark (-2) needs the cleanup (-3) in the same run: where each data "
           "set's remaining objects start depends on the positions the stonewall let run";
  if (i == "deltafs") {
    if (f.run_cleanup)
      return "--interface=deltafs has no cleanup phase (-3): its namespace is read-only after the compaction";
    if (f.run_precreate == f.run_benchmark)
      return "--interface=deltafs runs one phase per job: -1 (precreate into the ranks' stores under --root), then "
             "deltameta_compactor and read-only servers, then -2 (benchmark against them)";
    if (f.run_precreate && f.root.empty()) return "--interface=deltafs -1 needs --root (the ranks' store root)";
    if (f.object_size > kMaxInlineDataBytes)
      return "--object-size is over what DeltaFS carries, " + std::to_string(kMaxInlineDataBytes) +
             " bytes: an entry's value (stat and data) must fit the compaction's entry record";
  }
  if (i == "indexfs" && f.object_size > kMaxFrameObjectBytes)
    return "--object-size is over what one request frame carries, " + std::to_string(kMaxFrameObjectBytes) +
           " bytes (and the servers keep at most " + std::to_string(kMaxInlineDataBytes) + " inline)";
  return "";
}

}  // namespace deltameta
