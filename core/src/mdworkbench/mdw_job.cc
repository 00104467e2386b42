// The MD-Workbench job: see mdw_job.h.
#include "mdworkbench/mdw_job.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "jobs/job_report.h"
#include "jobs/mpi_util.h"
#include "jobs/tool_args.h"
#include "mdworkbench/mdw_flags.h"
#include "mdworkbench/mdw_lines.h"
#include "mdworkbench/mdw_report.h"
#include "mdworkbench/phases.h"
#include "util/build_info.h"
#include "util/cpu_placement.h"

namespace deltameta {
namespace {

constexpr char kTool[] = "deltameta_mdworkbench";
using Clock = std::chrono::steady_clock;

enum class Phase { kPrecreate, kBenchmark, kCleanup };
const char* PhaseName(Phase p) {
  return p == Phase::kPrecreate ? "precreate" : p == Phase::kBenchmark ? "benchmark" : "cleanup";
}

std::string Describe(const Verification& v) {
  std::string out;
  auto add = [&out](uint64_t n, const char* what) {
    if (n > 0) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  };
  add(v.failed, "failed");
  add(v.missing, "missing");
  add(v.mismatched, "mismatched");
  add(v.wrong_bytes, "wrong_bytes");
  add(v.deleted_still_found, "deleted_still_found");
  return out;
}

class MdwJob {
 public:
  MdwJob(const MpiSession& mpi, const MdwFlags& flags, const StoreOptions& options)
      : mpi_(mpi), flags_(flags), options_(options), space_(flags.Space(static_cast<uint32_t>(mpi.size()))) {}

  // Opens or connects the interface. Collective; false (error printed) if any rank failed.
  bool Prepare() {
    std::string error;
    const bool servers = flags_.interface == "indexfs" || (flags_.interface == "deltafs" && flags_.run_benchmark);
    // Before connecting: a channel goes to a server loop on the CPU the rank is pinned to.
    if (servers && flags_.cpu_affinity) PinCallingThread(CpuForSlot(AllowedCpus(), HostRank(MPI_COMM_WORLD)));
    const RpcSettings rpc{flags_.info_svr_uri, mpi_.rank(), std::chrono::seconds(flags_.rpc_timeout),
                          flags_.rpc_transport};
    if (flags_.interface == "posix") {
      iface_ = NewPosixInterface(flags_.root, &error);
    } else if (flags_.interface == "indexfs") {
      iface_ = ConnectIndexfsInterface(rpc, &error);
    } else if (flags_.interface == "cephfs") {
#ifdef DELTAMETA_WITH_CEPHFS
      iface_ = OpenCephfsInterface(flags_.root, flags_.cephfs_name, static_cast<int>(flags_.rpc_timeout), &error);
#else
      error = "this build has no CephFS client: rebuild with -DDELTAMETA_WITH_CEPHFS=ON (scripts/build-core.sh does)";
#endif
    } else if (flags_.run_precreate) {
      iface_ =
          OpenDeltafsWriter(flags_.root, static_cast<uint32_t>(mpi_.rank()), space_.ranks, space_, options_, &error);
    } else {
      iface_ = ConnectDeltafsReader(rpc, &error);
    }
    return AllRanksOk(iface_ != nullptr, kTool, error, MPI_COMM_WORLD);
  }

  void PrintHeader() const {
    const ObjectSpace& s = space_;
    const uint64_t sets = s.ranks * static_cast<uint64_t>(s.data_sets);
    std::printf("%s", HeaderPreamble().c_str());
    std::printf("MD-Workbench pattern: interface %s, %u ranks, rank offset %llu\n", flags_.interface.c_str(), s.ranks,
                static_cast<unsigned long long>(s.offset));
    std::printf(
        "  %u data sets per rank, %llu objects precreated per set, %llu per set and iteration, %llu "
        "iterations, %llu bytes per object\n",
        s.data_sets, static_cast<unsigned long long>(s.precreate), static_cast<unsigned long long>(s.per_iteration),
        static_cast<unsigned long long>(s.iterations), static_cast<unsigned long long>(s.object_size));
    std::printf("  objects in total %llu, working set %.3f MiB\n",
                static_cast<unsigned long long>(sets * (s.precreate + s.iterations * s.per_iteration)),
                static_cast<double>(sets * s.precreate * s.object_size) / (1 << 20));
    std::printf("------------------------------------------------\n");
    std::fflush(stdout);
  }

  // Runs one phase. Collective. False if the run cannot go on (reported once); on rank 0,
  // *failures names the phase's verification errors, if any.
  bool Run(Phase p, JsonLinesFile* json, std::string* failures) {
    double server_cpu0 = 0, server_cpu1 = 0;
    if (!QueryServerCpu(&server_cpu0)) return false;
    RankOps ops(!flags_.latency_file_prefix.empty() || flags_.mdworkbench_lines());
    QuietBarrier(MPI_COMM_WORLD);
    const double cpu0 = ProcessCpuSeconds();
    const Clock::time_point t0 = Clock::now();
    PhaseRunner runner(iface_.get(), space_, static_cast<uint32_t>(mpi_.rank()), &ops);
    const uint64_t first = CleanupFirst();
    std::string fatal;
    double untimed_s = 0;  // the benchmark's: barriers, checks and lines between its iterations
    bool ok = true;
    if (p == Phase::kBenchmark) {
      if (!Benchmark(&runner, &ops, &untimed_s)) return false;
    } else {
      ok = p == Phase::kPrecreate ? runner.Precreate(&fatal) : runner.Cleanup(first, &fatal);
    }
    ok = ok && iface_->Finish(&fatal);
    ops.elapsed_s = std::chrono::duration<double>(Clock::now() - t0).count() - untimed_s;
    ops.cpu_s = ProcessCpuSeconds() - cpu0;
    if (!AllRanksOk(ok, kTool, fatal, MPI_COMM_WORLD)) return false;
    // Untimed: what the rank deleted is gone (the benchmark checks after each iteration).
    ok = p == Phase::kCleanup ? runner.CheckCleanupDeletes(first, &fatal) : true;
    if (!AllRanksOk(ok, kTool, fatal, MPI_COMM_WORLD)) return false;
    if (!runner.first_failure().empty()) {
      std::fprintf(stderr, "%s[r%d]: %s: first failure: %s\n", kTool, mpi_.rank(), PhaseName(p),
                   runner.first_failure().c_str());
    }
    if (!QueryServerCpu(&server_cpu1)) return false;
    if (!flags_.latency_file_prefix.empty()) {
      const std::string path =
          flags_.latency_file_prefix + "-" + PhaseName(p) + "-" + std::to_string(mpi_.rank()) + ".csv";
      if (!AllRanksOk(ops.WriteLatencyCsv(path, &fatal), kTool, fatal, MPI_COMM_WORLD)) return false;
    }
    if (p != Phase::kBenchmark && flags_.mdworkbench_lines()) {
      const MdwLinePart part = PartSince(ops, MdwMark(), ops.elapsed_s);  // the checks' errors too
      PrintLines(MdwResultLines(PhaseName(p), part, LineSettings(0), MPI_COMM_WORLD));
    }

    MdwPhaseResult r = MergeMdwRanks(PhaseName(p), ops, flags_.process_reports, MPI_COMM_WORLD);
    if (mpi_.rank() != 0) return true;
    r.server_cpu_s = server_cpu1 - server_cpu0;
    Count(p, runner.replaces(), &r);
    std::vector<std::string> not_served;
    std::string reason;
    if (p == Phase::kBenchmark && !runner.replaces())
      not_served = {"create", "delete"}, reason = kDeltafsNotServedReason;
    if (flags_.ours()) PrintLines(MdwPhaseText(r, not_served, reason));
    nlohmann::json doc = MdwPhaseJson(r, flags_.interface, Parameters(), not_served, reason);
    if (p == Phase::kBenchmark) doc["positions_run"] = positions_run_;
    json->Append(doc);
    const Verification v = r.Total();
    if (v.total() > 0) *failures += std::string(failures->empty() ? "" : "; ") + PhaseName(p) + ": " + Describe(v);
    return true;
  }

 private:
  // The benchmark's iterations, each started together after a barrier (the first by Run)
  // and followed, untimed, by the check that what it deleted is gone and by its
  // MD-Workbench line. *untimed_s: the time between the iterations and in the wear-out
  // agreements. False if the run cannot go on (reported once).
  bool Benchmark(PhaseRunner* runner, RankOps* ops, double* untimed_s) {
    Stonewall wall;
    wall.seconds = static_cast<double>(flags_.stonewall_timer);
    wall.wear_out = flags_.stonewall_wear_out;
    wall.agree = [](uint64_t ran) {
      uint64_t all = 0;
      MPI_Request r;
      MPI_Iallreduce(&ran, &all, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD, &r);
      QuietWait(&r);
      return all;
    };
    const Clock::time_point start = Clock::now();
    double timed_s = 0;
    uint64_t first = 0;
    positions_run_.clear();
    for (uint64_t i = 0; i < space_.iterations; i++) {
      if (i > 0) QuietBarrier(MPI_COMM_WORLD);
      const MdwMark mark = MarkOf(*ops);
      const Clock::time_point it0 = Clock::now();
      IterationRun run;
      std::string fatal;
      bool ok = runner->BenchmarkIteration(first, wall, &run, &fatal);
      const double elapsed = std::chrono::duration<double>(Clock::now() - it0).count() - run.agree_s;
      timed_s += elapsed;
      if (!AllRanksOk(ok, kTool, fatal, MPI_COMM_WORLD)) return false;
      ok = runner->CheckBenchmarkDeletes(first, run.positions, &fatal);
      if (!AllRanksOk(ok, kTool, fatal, MPI_COMM_WORLD)) return false;
      first += run.positions;
      std::vector<uint64_t> positions(mpi_.rank() == 0 ? mpi_.size() : 0);
      MPI_Request r;
      MPI_Igather(&run.positions, 1, MPI_UINT64_T, positions.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &r);
      QuietWait(&r);
      if (mpi_.rank() == 0) positions_run_.push_back(positions);
      if (!flags_.mdworkbench_lines()) continue;
      if (mpi_.rank() == 0 && wall.wear_out && run.hit_s >= 0) {
        std::printf("stonewall wear out %fs (%d iter)\n", run.hit_s, static_cast<int>(run.positions));
      }
      PrintLines(MdwResultLines("benchmark", PartSince(*ops, mark, elapsed), LineSettings(StonewallIter(positions)),
                                MPI_COMM_WORLD));
    }
    // The cleanup starts where the rank working on this rank's data sets stopped.
    std::vector<uint64_t> totals(mpi_.size());
    MPI_Request r;
    MPI_Iallgather(&first, 1, MPI_UINT64_T, totals.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD, &r);
    QuietWait(&r);
    const uint64_t n = space_.ranks, source = (mpi_.rank() + n - space_.offset % n) % n;
    benchmark_positions_ = totals[source];
    benchmark_ran_ = true;
    *untimed_s = std::chrono::duration<double>(Clock::now() - start).count() - timed_s;
    return true;
  }

  // Where the cleanup starts in each own data set: the positions the benchmark ran there.
  uint64_t CleanupFirst() const {
    if (benchmark_ran_) return benchmark_positions_;
    // An earlier job ran the benchmark (without a stonewall: CheckMdwFlags): R * I.
    return flags_.benchmark() || !flags_.precreate() ? space_.iterations * space_.per_iteration : 0;
  }

  // MD-Workbench's stonewall-iter (on rank 0): with wear-out the positions every rank ran;
  // without, the most a rank that the stonewall stopped ran (0: none stopped).
  uint64_t StonewallIter(const std::vector<uint64_t>& positions) const {
    uint64_t most = 0;
    for (uint64_t k : positions) {
      if (flags_.stonewall_wear_out || k < space_.per_iteration) most = std::max(most, k);
    }
    return flags_.stonewall_timer > 0 ? most : 0;
  }

  MdwLineSettings LineSettings(uint64_t stonewall_iter) const {
    MdwLineSettings s;
    s.object_size = space_.object_size;
    s.read_only = !iface_->Serves(OpType::kCreate) || !iface_->Serves(OpType::kDelete);
    s.stonewall_iter = stonewall_iter;
    s.process_reports = flags_.process_reports;
    return s;
  }

  static void PrintLines(const std::string& lines) {
    if (lines.empty()) return;
    std::printf("%s", lines.c_str());
    std::fflush(stdout);
  }

  // Objects handled and operations expected (MD-Workbench's counts; the benchmark's follow
  // the positions each rank ran).
  void Count(Phase p, bool replaces, MdwPhaseResult* r) const {
    const uint64_t sets = space_.ranks * static_cast<uint64_t>(space_.data_sets);
    if (p == Phase::kPrecreate) {
      r->objects = r->expected_ops = sets * space_.precreate;
    } else if (p == Phase::kBenchmark) {
      uint64_t positions = 0;
      for (const std::vector<uint64_t>& iteration : positions_run_) {
        for (uint64_t k : iteration) positions += k;
      }
      r->objects = positions * space_.data_sets;
      r->expected_ops = r->objects * (replaces ? 4 : 2);
    } else {
      const OpTypeStats& deletes = r->types[static_cast<int>(OpType::kDelete)];
      r->objects = deletes.count - deletes.errors.total();
      r->expected_ops = sets * space_.precreate;
    }
  }

  nlohmann::json Parameters() const {
    const int64_t inline_max = iface_->InlineDataMax();
    return {{"data_sets", space_.data_sets},
            {"precreate_per_set", space_.precreate},
            {"objects_per_set", space_.per_iteration},
            {"object_size", space_.object_size},
            {"iterations", space_.iterations},
            {"offset", space_.offset},
            {"stonewall_timer_s", flags_.stonewall_timer},
            {"stonewall_wear_out", flags_.stonewall_wear_out},
            {"inline_data_max", inline_max < 0 ? nlohmann::json(nullptr) : nlohmann::json(inline_max)}};
  }

  // Collective: the servers' CPU seconds so far (on rank 0). False if a server is lost.
  bool QueryServerCpu(double* cpu) {
    std::string error;
    const bool ok = mpi_.rank() != 0 || iface_->ServerCpuSeconds(cpu, &error);
    return AllRanksOk(ok, kTool, error, MPI_COMM_WORLD);
  }

  const MpiSession& mpi_;
  const MdwFlags& flags_;
  StoreOptions options_;
  ObjectSpace space_;
  std::unique_ptr<MdwInterface> iface_;
  std::vector<std::vector<uint64_t>> positions_run_;  // per iteration, per rank (rank 0)
  bool benchmark_ran_ = false;
  uint64_t benchmark_positions_ = 0;  // what the benchmark ran on this rank's data sets
};

}  // namespace

int RunMdwJob(const MpiSession& mpi, int argc, char** argv) {
  std::vector<std::string> args = NormalizeMdwArgs(argc, argv);
  std::vector<char*> args_argv;
  for (std::string& a : args) args_argv.push_back(a.data());
  args_argv.push_back(nullptr);

  MdwFlags flags;
  FlagSet set(kTool,
              "MD-Workbench's pattern over MPI ranks: per rank D data sets of P objects (precreate), R iterations of "
              "stat, read, delete and create of I objects per data set of another rank (benchmark), then the rest "
              "deleted (cleanup).\nMD-Workbench's short forms are accepted: -D=4 or -D 4, -P, -I, -S, -R, -O, -L, "
              "-w, -i, -W, and -1/-2/-3 to run only that phase. Prints MD-Workbench's result lines and our table "
              "(--output).");
  RegisterMdwFlags(&set, &flags);
  StoreOptions options;
  int exit_code = ParseToolArgs(
      mpi, kTool, &set, static_cast<int>(args.size()), args_argv.data(), [&flags] { return CheckMdwFlags(flags); },
      &options);
  if (exit_code >= 0) return exit_code;
  std::string error;
  JsonLinesFile json;
  const bool json_ok = mpi.rank() != 0 || json.Open(flags.json, &error, true);
  if (!AllRanksOk(json_ok, kTool, error, MPI_COMM_WORLD)) return 2;

  MdwJob job(mpi, flags, options);
  if (!job.Prepare()) return 1;
  if (mpi.rank() == 0 && flags.ours()) job.PrintHeader();
  std::string failures;
  if (flags.precreate() && !job.Run(Phase::kPrecreate, &json, &failures)) return 1;
  if (flags.benchmark() && !job.Run(Phase::kBenchmark, &json, &failures)) return 1;
  if (flags.cleanup() && !job.Run(Phase::kCleanup, &json, &failures)) return 1;
  if (mpi.rank() == 0 && !failures.empty()) PrintError(kTool, "verification failed: " + failures);
  // Rank 0 alone knows the merged counts: it decides the exit code for all.
  int failed = failures.empty() ? 0 : 1;
  MPI_Request r;
  MPI_Ibcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD, &r);
  QuietWait(&r);
  return failed;
}

}  // namespace deltameta
