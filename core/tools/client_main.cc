// deltameta_client: the benchmark client job (the seed guide's deltafs_bm_cli). Each MPI
// rank creates --n files (write phase) and/or lstats them back (read phases) through one
// of three backends: per-op RPC to servers (IndexFS), bulk insertion (--bk=1), or its own
// local store (--fs_use_local=1, DeltaFS). Every lstat is verified; any missing or wrong
// entry is reported and makes the job exit 1.
//
// Built twice: deltameta_client has the RPC backend only and no RocksDB, so an IndexFS
// client carries no storage engine; for --bk=1 or --fs_use_local=1 it becomes
// deltameta_client_store (DELTAMETA_CLIENT_STORE_MODES), installed beside it, before MPI
// starts. Both take the same flags and print and report as deltameta_client.
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "deltameta/build_info.h"
#include "deltameta/client_backend.h"
#include "deltameta/cpu_placement.h"
#include "deltameta/flags.h"
#include "deltameta/malloc_policy.h"
#include "deltameta/tool_args.h"
#include "deltameta/mpi_util.h"
#include "deltameta/job_report.h"
#include "deltameta/workload.h"
#ifdef DELTAMETA_CLIENT_STORE_MODES
#include "deltameta/store_backends.h"
#endif

namespace dm = deltameta;

namespace {

constexpr char kTool[] = "deltameta_client";
using Clock = std::chrono::steady_clock;

struct ClientFlags {
  int64_t n = 1000;
  bool share_dir = true;
  bool random_order = true;
  int64_t write_phases = 1;
  int64_t read_phases = 0;
  bool bk = false;
  std::string db;
  bool fs_use_local = false;
  bool use_existing_fs = false;
  std::string info_svr_uri = "tcp://127.0.0.1:10086";
  std::string rpc_transport = "auto";
  bool skip_fs_checks = false;
  int64_t rpc_timeout = 30;
  bool verify_total = true;
  bool cpu_affinity = true;
  std::string json;
};

void RegisterFlags(dm::FlagSet* f, ClientFlags* c) {
  f->Int("n", &c->n, 1, int64_t{1} << 40, "files per rank");
  f->Bool("share_dir", &c->share_dir, "all ranks create in one shared directory (0: one directory per rank)");
  f->Bool("random_order", &c->random_order, "visit files in a seeded random order (0: ascending)");
  f->Int("write_phases", &c->write_phases, 0, 1, "run the create phase (0 or 1)");
  f->Int("read_phases", &c->read_phases, 0, 100, "number of lstat phases after the write phase");
  f->Bool("bk", &c->bk, "bulk insertion: write sorted tables under --db, servers ingest them at commit");
  f->String("db", &c->db, "with --bk: table directory; with --fs_use_local: the ranks' store root (<db>/r<rank>)");
  f->Bool("fs_use_local", &c->fs_use_local, "DeltaFS: each rank uses its own store under --db, no servers");
  f->Bool("use_existing_fs", &c->use_existing_fs,
          "the namespace exists already (read an existing --fs_use_local store read-only)");
  f->String("info_svr_uri", &c->info_svr_uri, "the servers' info endpoint");
  f->String("rpc_transport", &c->rpc_transport,
            "auto: servers in this network namespace over shared memory, others TCP; "
            "unix: those over Unix sockets instead; tcp: always TCP");
  f->Bool("skip_fs_checks", &c->skip_fs_checks, "accepted for the seed guide's command lines (checks are the server's)");
  f->Int("rpc_timeout", &c->rpc_timeout, 1, 3600, "seconds to wait for a server (connect and each reply)");
  f->Bool("verify_total", &c->verify_total, "after the read phases, check the store holds exactly ranks x n entries");
  f->Bool("cpu_affinity", &c->cpu_affinity,
          "with servers: pin each rank to one CPU of its host (ranks in turn), where the servers' "
          "loop threads serve its shared-memory calls (0: leave placement to the scheduler)");
  f->String("json", &c->json, "write one JSON document per phase to this file (JSON Lines)");
}

std::string Validate(const ClientFlags& f) {
  if (f.bk && f.fs_use_local) return "--bk=1 and --fs_use_local=1 exclude each other: pick one design";
  if ((f.bk || f.fs_use_local) && f.db.empty()) return "--db is required with --bk=1 or --fs_use_local=1";
  if (f.write_phases == 0 && f.read_phases == 0) return "nothing to do: --write_phases=0 and --read_phases=0";
  if (f.fs_use_local && f.write_phases == 0 && !f.use_existing_fs)
    return "--write_phases=0 with --fs_use_local=1 reads an existing store: add --use_existing_fs=1";
  if (f.bk && f.write_phases == 0) return "--bk=1 needs a write phase";
  if (f.rpc_transport != "auto" && f.rpc_transport != "unix" && f.rpc_transport != "tcp")
    return "--rpc_transport must be auto, unix or tcp";
  return "";
}

// --rpc_transport (validated) as the fastest transport the client may use.
dm::Transport FastestTransport(const std::string& flag) {
  dm::Transport t = dm::Transport::kShm;
  if (flag != "auto") dm::ParseTransport(flag, &t);
  return t;
}

void PrintHeader(const ClientFlags& f, const dm::StoreOptions& o, int ranks) {
  std::printf("%s", dm::HeaderPreamble().c_str());
  std::printf("Num ranks:          %d\n", ranks);
  std::printf("Fs use existing:    %d (prepare_run=%s)\n", f.use_existing_fs, f.use_existing_fs ? "lstat" : "mkdir");
  std::printf("Fs use local:       %d\n", f.fs_use_local);
  std::printf("Fs infosvr locatio: %s\n", f.fs_use_local ? "N/A" : f.info_svr_uri.c_str());
  std::printf("Fs skip checks:     %d\n", f.skip_fs_checks);
  if (f.fs_use_local) {
    std::printf("RPC timeout:        N/A\n");
  } else {
    std::printf("RPC timeout:        %lld s\n", static_cast<long long>(f.rpc_timeout));
  }
  std::printf("Creats:             %lld x %lld per rank (0 KB data per file)\n", static_cast<long long>(f.n),
              static_cast<long long>(f.write_phases));
  std::printf("Bulk in:            %s\n", f.bk ? "1" : "OFF");
  if (f.bk) std::printf("BK DB:\n%sDb: %s/r<rank>\n", o.HeaderText().c_str(), f.db.c_str());
  std::printf("Lstats:             %lld x %lld per rank\n", static_cast<long long>(f.n),
              static_cast<long long>(f.read_phases));
  std::printf("Random key order:   %d\n", f.random_order);
  std::printf("Share dir:          %d\n", f.share_dir);
  if (!f.fs_use_local) std::printf("CPU affinity:       %d\n", f.cpu_affinity);
  if (f.fs_use_local) std::printf("CLIENT DB:\n%sDb: %s/r<rank>\n", o.HeaderText().c_str(), f.db.c_str());
  std::printf("------------------------------------------------\n");
  std::fflush(stdout);
}

class ClientJob {
 public:
  ClientJob(const dm::MpiSession& mpi, const ClientFlags& flags, const dm::StoreOptions& options,
            nlohmann::json params)
      : mpi_(mpi), flags_(flags), options_(options), params_(std::move(params)) {
    work_.rank = static_cast<uint32_t>(mpi.rank());
    work_.num_ranks = static_cast<uint32_t>(mpi.size());
    work_.files_per_rank = static_cast<uint64_t>(flags.n);
    work_.share_dir = flags.share_dir;
    work_.random_order = flags.random_order;
  }

  // Connects or opens the backend. Collective; false (error printed) if any rank failed.
  bool Prepare() {
    std::string error;
    bool ok;
#ifdef DELTAMETA_CLIENT_STORE_MODES
    if (flags_.fs_use_local) {
      ok = OpenLocalStore(&error);
      return dm::AllRanksOk(ok, kTool, error, MPI_COMM_WORLD);
    }
#endif
    // Before connecting: a channel goes to a server loop on the CPU the rank is pinned to.
    if (flags_.cpu_affinity) dm::PinCallingThread(dm::CpuForSlot(dm::AllowedCpus(), dm::HostRank(MPI_COMM_WORLD)));
    servers_ = dm::ServerSet::Connect(flags_.info_svr_uri, mpi_.rank(), std::chrono::seconds(flags_.rpc_timeout),
                                      FastestTransport(flags_.rpc_transport), &error);
    ok = servers_ != nullptr;
#ifdef DELTAMETA_CLIENT_STORE_MODES
    if (ok && flags_.bk) ok = StartBulkInsertion(&error);
#endif
    if (ok && !backend_) backend_ = dm::NewRpcBackend(servers_.get());
    return dm::AllRanksOk(ok, kTool, error, MPI_COMM_WORLD);
  }

  // Runs one phase. Collective. Returns false if the job cannot go on (a server or the
  // store failed; reported once); on rank 0, *errors grows by the phase's verification errors.
  bool RunPhase(bool write, int index, dm::JsonLinesFile* json, uint64_t* errors) {
    double server_cpu0 = 0, server_cpu1 = 0;
    if (!QueryServerCpu(&server_cpu0)) return false;
    dm::RankPhase rp;
    const double cpu0 = dm::ProcessCpuSeconds();
    const auto t0 = Clock::now();
    const uint64_t now_us = dm::NowMicros();
    const uint64_t dir = work_.DirId();
    std::string error, failure;
    dm::OpStatus status;
    dm::FileStat got;
    const dm::FileOrder order = work_.Order(write ? 0 : 1 + static_cast<uint64_t>(index));
    for (uint64_t position = 0; position < order.size(); position++) {
      const uint64_t i = order.At(position);
      const std::string name = work_.FileName(i);
      const auto op0 = Clock::now();
      bool ok = write ? backend_->Create(dir, name, work_.StatFor(i, now_us), &status, &error)
                      : backend_->Lstat(dir, name, &got, &status, &error);
      rp.latency_ns.Add(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - op0).count()));
      if (!ok) {
        failure = error;
        break;
      }
      rp.counters.ops++;
      Classify(write, status, got, i, &rp.counters);
    }
    if (failure.empty() && write && !backend_->Commit(&error)) failure = error;
    rp.elapsed_s = std::chrono::duration<double>(Clock::now() - t0).count();
    rp.cpu_s = dm::ProcessCpuSeconds() - cpu0;
    if (!dm::AllRanksOk(failure.empty(), kTool, failure, MPI_COMM_WORLD)) return false;
    if (!QueryServerCpu(&server_cpu1)) return false;

    dm::JobPhase job = dm::MergeRanks(rp, MPI_COMM_WORLD);
    if (mpi_.rank() != 0) return true;
    job.server_cpu_s = server_cpu1 - server_cpu0;
    std::printf("%s\n", dm::ResultLine(write ? "insert" : "fstats", job).c_str());
    if (job.counters.errors() > 0) {
      std::printf("errors: %llu already existed, %llu missing, %llu with wrong attributes, %llu failed\n",
                  static_cast<unsigned long long>(job.counters.exists),
                  static_cast<unsigned long long>(job.counters.missing),
                  static_cast<unsigned long long>(job.counters.mismatched),
                  static_cast<unsigned long long>(job.counters.failed));
    }
    std::fflush(stdout);
    nlohmann::json doc = dm::PhaseJson(kTool, write ? "insert" : "lstat", job, params_, true);
    doc["phase_index"] = index;
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
        dm::PrintError(kTool, error);
        return false;
      }
    } else {
      // Local stores: every rank counts its own.
      uint64_t mine = 0;
      if (!dm::AllRanksOk(backend_->LocalEntries(&mine, &error), kTool, error, MPI_COMM_WORLD)) return false;
      dm::QuietReduce(&mine, &held, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    }
    if (mpi_.rank() != 0 || held == expected) return true;
    dm::PrintError(kTool, "the namespace holds " + std::to_string(held) + " entries, the job expected " +
                              std::to_string(expected) + " (" + std::to_string(work_.num_ranks) + " ranks x " +
                              std::to_string(work_.files_per_rank) + ")");
    return false;
  }

#ifdef DELTAMETA_CLIENT_STORE_MODES
  // About the most entries one memtable of the write phase can hold, which its index is
  // reserved for (more only cost one copy of the index; --n entries could need more address
  // space than the host allows: --n=1e11 was an uncaught std::bad_alloc). RocksDB starts a new memtable once one has taken more than
  // memtable_size plus part of an arena block (at most an eighth of memtable_size); the
  // write batch that crosses that line (write_ahead_log_buffer bytes) still goes in. Every
  // entry takes at least 24 bytes: its 8-byte directory id and sequence number in the
  // memtable's arena, and its 8-byte slot in the index.
  static uint64_t MemtableEntries(const dm::StoreOptions& o) {
    const uint64_t bytes = static_cast<uint64_t>(o.memtable_size + o.memtable_size / 8 + o.write_ahead_log_buffer);
    return bytes / 24 + 1;
  }

  // --fs_use_local=1: the rank's own store <db>/r<rank>.
  bool OpenLocalStore(std::string* error) {
    const std::string path = flags_.db + "/r" + std::to_string(mpi_.rank());
    const dm::StoreLayout layout{dm::StoreLayout::Kind::kOrigin, work_.rank, work_.num_ranks};
    dm::StoreOptions local = options_;
    local.write_only = !flags_.use_existing_fs;
    local.write_only_entries = std::min<uint64_t>(work_.files_per_rank, MemtableEntries(options_));
    auto store = dm::Store::Open(path, flags_.use_existing_fs ? dm::Store::Mode::kReadOnly : dm::Store::Mode::kCreate,
                                 local, layout, error);
    if (store && flags_.use_existing_fs &&
        (store->layout().kind != layout.kind || store->layout().index != layout.index ||
         store->layout().count != layout.count)) {
      *error = path + " holds " + store->layout().Describe() + ", but this is client rank " +
               std::to_string(work_.rank) + " of " + std::to_string(work_.num_ranks) +
               ": read with as many ranks as wrote the stores";
      return false;
    }
    if (!store) return false;
    backend_ = dm::NewLocalBackend(std::move(store), static_cast<size_t>(options_.write_ahead_log_buffer));
    return true;
  }

  // --bk=1: tables under <db>/r<rank>, ingested by the servers at commit.
  bool StartBulkInsertion(std::string* error) {
    dm::StorageLocation dir;
    if (!dm::StorageLocation::Resolve(flags_.db + "/r" + std::to_string(mpi_.rank()), &dir, error)) return false;
    rocksdb::Status s = dir.CreateDirs();
    if (!s.ok()) {
      *error = "cannot create the bulk-insertion table directory " + dir.uri() + ": " + s.ToString();
      return false;
    }
    backend_ = dm::NewBulkBackend(servers_.get(), options_, dir);
    return true;
  }
#endif

 private:
  void Classify(bool write, dm::OpStatus status, const dm::FileStat& got, uint64_t i, dm::PhaseCounters* c) {
    if (status == dm::OpStatus::kOk) {
      if (!write && !dm::MatchesExpected(got, work_.StatFor(i, 0))) c->mismatched++;
    } else if (status == dm::OpStatus::kExists) {
      c->exists++;
    } else if (status == dm::OpStatus::kNotFound) {
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
    return dm::AllRanksOk(ok, kTool, error, MPI_COMM_WORLD);
  }

  const dm::MpiSession& mpi_;
  const ClientFlags& flags_;
  dm::StoreOptions options_;
  nlohmann::json params_;
  dm::Workload work_;
  std::unique_ptr<dm::ServerSet> servers_;
  std::unique_ptr<dm::ClientBackend> backend_;
};

#ifndef DELTAMETA_CLIENT_STORE_MODES
// True if the command line asks for a store-backed mode (--bk or --fs_use_local other
// than 0; deltameta_client_store validates the values).
bool WantsStoreModes(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    const std::string_view arg = argv[i];
    for (std::string_view flag : {"--bk=", "--fs_use_local="}) {
      if (arg.substr(0, flag.size()) == flag && arg.substr(flag.size()) != "0") return true;
    }
  }
  return false;
}

// Becomes deltameta_client_store from this program's directory, with the same arguments.
[[noreturn]] void RunStoreClient(char** argv) {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string dir = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string(argv[0]);
  dir = dir.find('/') == std::string::npos ? "." : dir.substr(0, dir.rfind('/'));
  const std::string store_client = dir + "/deltameta_client_store";
  execv(store_client.c_str(), argv);
  dm::PrintError(kTool, "--bk=1 and --fs_use_local=1 run " + store_client + ", which cannot be started (" +
                            std::strerror(errno) + "): install it beside deltameta_client");
  std::exit(2);
}
#endif

int Run(const dm::MpiSession& mpi, int argc, char** argv) {
  ClientFlags flags;
  dm::FlagSet set(kTool,
                  "Metadata benchmark client job: creates and lstats --n files per MPI rank.\n"
                  "--bk=1 and --fs_use_local=1 run in deltameta_client_store, installed beside deltameta_client.");
  RegisterFlags(&set, &flags);
  dm::StoreOptions options;
  int exit_code = dm::ParseToolArgs(mpi, kTool, &set, argc, argv, [&flags] { return Validate(flags); }, &options);
  if (exit_code >= 0) return exit_code;
  std::string error;
  dm::JsonLinesFile json;
  bool json_ok = mpi.rank() != 0 || json.Open(flags.json, &error);
  if (!dm::AllRanksOk(json_ok, kTool, error, MPI_COMM_WORLD)) return 2;

  nlohmann::json params = set.Values();
  params["ranks"] = mpi.size();
  params["mode"] = flags.fs_use_local ? "local" : flags.bk ? "bulk" : "rpc";
  params["store"] = options.ToJson();
  if (mpi.rank() == 0) PrintHeader(flags, options, mpi.size());

  ClientJob job(mpi, flags, options, params);
  if (!job.Prepare()) return 1;
  uint64_t errors = 0;
  if (flags.write_phases > 0 && !job.RunPhase(true, 0, &json, &errors)) return 1;
  for (int i = 0; i < flags.read_phases; i++) {
    if (!job.RunPhase(false, i, &json, &errors)) return 1;
  }
  bool total_ok = flags.read_phases == 0 || !flags.verify_total || job.VerifyTotal();
  if (mpi.rank() == 0 && errors > 0) {
    dm::PrintError(kTool, std::to_string(errors) + " operations failed verification (see the errors lines above)");
  }
  return errors == 0 && total_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
#ifndef DELTAMETA_CLIENT_STORE_MODES
  if (WantsStoreModes(argc, argv)) RunStoreClient(argv);
#endif
  dm::KeepLargeAllocationsMapped();
  dm::MpiSession mpi(&argc, &argv);
  return mpi.Finish(Run(mpi, argc, argv));
}
