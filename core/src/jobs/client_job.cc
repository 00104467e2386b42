// The benchmark client job: see client_job.h.
#include "jobs/client_job.h"

#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <nlohmann/json.hpp>

#include "deltameta/flags.h"
#include "jobs/job_report.h"
#include "jobs/mpi_util.h"
#include "jobs/tool_args.h"
#include "util/cpu_placement.h"
#ifdef DELTAMETA_WITH_CEPHFS
#include "client/cephfs_backend.h"
#endif

namespace deltameta {
namespace {

constexpr char kTool[] = "deltameta_client";
using Clock = std::chrono::steady_clock;

class ClientJob {
 public:
  ClientJob(const MpiSession& mpi, const ClientFlags& flags, const StoreOptions& options, nlohmann::json params,
            const StoreModes* store_modes)
      : mpi_(mpi), flags_(flags), options_(options), params_(std::move(params)), store_modes_(store_modes) {
    work_.rank = static_cast<uint32_t>(mpi.rank());
    work_.num_ranks = static_cast<uint32_t>(mpi.size());
    work_.files_per_rank = static_cast<uint64_t>(flags.n);
    work_.share_dir = flags.share_dir;
    work_.random_order = flags.random_order;
  }

  // Connects or opens the backend. Collective; false (error printed) if any rank failed.
  bool Prepare() {
    std::string error;
    if (flags_.cephfs) return PrepareCephfs();
    if (store_modes_ && flags_.fs_use_local) {
      backend_ = store_modes_->open_local(flags_, work_, options_, &error);
      return AllRanksOk(backend_ != nullptr, kTool, error, MPI_COMM_WORLD);
    }
    // Before connecting: a channel goes to a server loop on the CPU the rank is pinned to.
    if (flags_.cpu_affinity) PinCallingThread(CpuForSlot(AllowedCpus(), HostRank(MPI_COMM_WORLD)));
    servers_ = ServerSet::Connect(flags_.info_svr_uri, mpi_.rank(), std::chrono::seconds(flags_.rpc_timeout),
                                  ClientTransport(flags_.rpc_transport), &error);
    bool ok = servers_ != nullptr;
    if (ok && store_modes_ && flags_.bk) {
      backend_ = store_modes_->start_bulk(flags_, work_, servers_.get(), options_, &error);
      ok = backend_ != nullptr;
    }
    if (ok && !backend_) backend_ = NewRpcBackend(servers_.get());
    return AllRanksOk(ok, kTool, error, MPI_COMM_WORLD);
  }

  // Rank 0 makes the run's directories, then every rank mounts. Collective.
  bool PrepareCephfs() {
    std::string error;
#ifdef DELTAMETA_WITH_CEPHFS
    const bool dirs_ok =
        mpi_.rank() != 0 || flags_.use_existing_fs || PrepareCephfsDirs(flags_, work_.num_ranks, &error);
    if (!AllRanksOk(dirs_ok, kTool, error, MPI_COMM_WORLD)) return false;
    backend_ = OpenCephfsBackend(flags_, work_, &error);
    return AllRanksOk(backend_ != nullptr, kTool, error, MPI_COMM_WORLD);
#else
    error = "this build has no CephFS client: rebuild with -DDELTAMETA_WITH_CEPHFS=ON (scripts/build-core.sh does)";
    return AllRanksOk(false, kTool, error, MPI_COMM_WORLD);
#endif
  }

  // Runs one phase. Collective. Returns false if the job cannot go on (a server or the
  // store failed; reported once); on rank 0, *errors grows by the phase's verification errors.
  bool RunPhase(bool write, int index, JsonLinesFile* json, uint64_t* errors) {
    double server_cpu0 = 0, server_cpu1 = 0;
    if (!QueryServerCpu(&server_cpu0)) return false;
    RankPhase rp;
    const double cpu0 = ProcessCpuSeconds();
    const auto t0 = Clock::now();
    const uint64_t now_us = NowMicros();
    const uint64_t dir = work_.DirId();
    std::string error, failure;
    OpStatus status;
    FileStat got;
    const FileOrder order = work_.Order(write ? 0 : 1 + static_cast<uint64_t>(index));
    for (uint64_t position = 0; position < order.size(); position++) {
      const uint64_t i = order.At(position);
      const std::string name = work_.FileName(i);
      const auto op0 = Clock::now();
      bool ok = write ? backend_->Create(dir, name, work_.StatFor(i, now_us), &status, &error)
                      : backend_->Lstat(dir, name, &got, &status, &error);
      rp.latency_ns.Add(
          static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - op0).count()));
      if (!ok) {
        failure = error;
        break;
      }
      rp.counters.ops++;
      Classify(write, status, got, i, &rp.counters);
    }
    if (failure.empty() && write && !backend_->Commit(&error)) failure = error;
    rp.elapsed_s = std::chrono::duration<double>(Clock::now() - t0).count();
    rp.cpu_s = ProcessCpuSeconds() - cpu0;
    if (!AllRanksOk(failure.empty(), kTool, failure, MPI_COMM_WORLD)) return false;
    if (!QueryServerCpu(&server_cpu1)) return false;

    JobPhase job = MergeRanks(rp, MPI_COMM_WORLD);
    const uint64_t peak_kib = JobPeakResidentKib(MPI_COMM_WORLD);
    if (mpi_.rank() != 0) return true;
    job.server_cpu_s = server_cpu1 - server_cpu0;
    std::printf("%s\n", ResultLine(write ? "insert" : "fstats", job).c_str());
    if (job.counters.errors() > 0) {
      std::printf("errors: %llu already existed, %llu missing, %llu with wrong attributes, %llu failed\n",
                  static_cast<unsigned long long>(job.counters.exists),
                  static_cast<unsigned long long>(job.counters.missing),
                  static_cast<unsigned long long>(job.counters.mismatched),
                  static_cast<unsigned long long>(job.counters.failed));
    }
    std::fflush(stdout);
    nlohmann::json doc = PhaseJson(kTool, write ? "insert" : "lstat", job, params_, true);
    doc["phase_index"] = index;
    doc["peak_resident_kib"] = peak_kib;
    doc["servers"] = servers_ ? servers_->size() : 0;
    doc["transport"] = servers_ ? servers_->transport() : "none";
    if (servers_) doc["server_addresses"] = servers_->addresses();
    json->Append(doc);
    *errors += job.counters.errors();
    return true;
  }

  // Checks that the namespace holds exactly ranks x n entries (no more, no fewer).
  // Collective; returns false on rank 0 if it does not.
  bool VerifyTotal() {
    const uint64_t expected = work_.files_per_rank * work_.num_ranks;
    uint64_t held = 0;
    std::string error;
    if (servers_) {
      double cpu;
      if (mpi_.rank() != 0) return true;
      if (!servers_->QueryStats(true, &cpu, &held, &error)) {
        PrintError(kTool, error);
        return false;
      }
    } else {
      // Local stores: every rank counts its own.
      uint64_t mine = 0;
      if (!AllRanksOk(backend_->LocalEntries(&mine, &error), kTool, error, MPI_COMM_WORLD)) return false;
      QuietReduce(&mine, &held, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    }
    if (mpi_.rank() != 0 || held == expected) return true;
    PrintError(kTool, "the namespace holds " + std::to_string(held) + " entries, the job expected " +
                          std::to_string(expected) + " (" + std::to_string(work_.num_ranks) + " ranks x " +
                          std::to_string(work_.files_per_rank) + ")");
    return false;
  }

 private:
  void Classify(bool write, OpStatus status, const FileStat& got, uint64_t i, PhaseCounters* c) {
    if (status == OpStatus::kOk) {
      FileStat expected = work_.StatFor(i, 0);
      if (backend_->AssignsInodes() && got.ino != 0) expected.ino = got.ino;
      if (!write && !MatchesExpected(got, expected)) c->mismatched++;
    } else if (status == OpStatus::kExists) {
      c->exists++;
    } else if (status == OpStatus::kNotFound) {
      c->missing++;
    } else {
      c->failed++;
    }
  }

  // Collective: the servers' CPU seconds so far (on rank 0). False if a server is lost.
  bool QueryServerCpu(double* cpu) {
    uint64_t entries;
    std::string error;
    bool ok = !servers_ || mpi_.rank() != 0 || servers_->QueryStats(false, cpu, &entries, &error);
    return AllRanksOk(ok, kTool, error, MPI_COMM_WORLD);
  }

  const MpiSession& mpi_;
  const ClientFlags& flags_;
  StoreOptions options_;
  nlohmann::json params_;
  const StoreModes* store_modes_;
  Workload work_;
  std::unique_ptr<ServerSet> servers_;
  std::unique_ptr<ClientBackend> backend_;
};

}  // namespace

int RunClientJob(const MpiSession& mpi, int argc, char** argv, const StoreModes* store_modes) {
  ClientFlags flags;
  FlagSet set(kTool,
              "Metadata benchmark client job: creates and lstats --n files per MPI rank.\n"
              "--bk=1 and --fs_use_local=1 run in deltameta_client_store, installed beside deltameta_client.");
  RegisterClientFlags(&set, &flags);
  StoreOptions options;
  int exit_code = ParseToolArgs(
      mpi, kTool, &set, argc, argv, [&flags] { return CheckClientFlags(flags); }, &options);
  if (exit_code >= 0) return exit_code;
  std::string error;
  JsonLinesFile json;
  bool json_ok = mpi.rank() != 0 || json.Open(flags.json, &error);
  if (!AllRanksOk(json_ok, kTool, error, MPI_COMM_WORLD)) return 2;

  nlohmann::json params = set.Values();
  params["ranks"] = mpi.size();
  params["mode"] = flags.cephfs ? "cephfs" : flags.fs_use_local ? "local" : flags.bk ? "bulk" : "rpc";
  params["store"] = options.ToJson();
  if (mpi.rank() == 0) PrintClientHeader(flags, options, mpi.size());

  ClientJob job(mpi, flags, options, params, store_modes);
  if (!job.Prepare()) return 1;
  uint64_t errors = 0;
  if (flags.write_phases > 0 && !job.RunPhase(true, 0, &json, &errors)) return 1;
  for (int i = 0; i < flags.read_phases; i++) {
    if (!job.RunPhase(false, i, &json, &errors)) return 1;
  }
  bool total_ok = flags.read_phases == 0 || !flags.verify_total || job.VerifyTotal();
  if (mpi.rank() == 0 && errors > 0) {
    PrintError(kTool, std::to_string(errors) + " operations failed verification (see the errors lines above)");
  }
  return errors == 0 && total_ok ? 0 : 1;
}

void RunStoreClient(char** argv) {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string dir = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string(argv[0]);
  dir = dir.find('/') == std::string::npos ? "." : dir.substr(0, dir.rfind('/'));
  const std::string store_client = dir + "/deltameta_client_store";
  execv(store_client.c_str(), argv);
  PrintError(kTool, "--bk=1 and --fs_use_local=1 run " + store_client + ", which cannot be started (" +
                        std::strerror(errno) + "): install it beside deltameta_client");
  std::exit(2);
}

}  // namespace deltameta
