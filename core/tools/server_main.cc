// deltameta_server: the metadata server job (the seed guide's deltafs_bm_svr). Each MPI
// rank serves one partition from its own store <db>/r<rank>; rank 0 also answers the info
// endpoint that tells clients where every rank listens. Runs until SIGINT or SIGTERM, then
// makes its store durable, closes it and exits 0.
#include <unistd.h>

#include <cstdio>

#include "deltameta/build_info.h"
#include "deltameta/cpu_placement.h"
#include "deltameta/flags.h"
#include "deltameta/malloc_policy.h"
#include "deltameta/tool_args.h"
#include "deltameta/metadata_service.h"
#include "deltameta/mpi_util.h"
#include "deltameta/rpc_server.h"
#include "deltameta/store.h"
#include "deltameta/transport.h"

namespace dm = deltameta;

namespace {

constexpr char kTool[] = "deltameta_server";
constexpr int kAddressSlot = 64;

struct ServerFlags {
  std::string db;
  bool use_existing_fs = false;
  bool skip_fs_checks = false;
  int64_t ports_per_rank = 1;
  int64_t rpc_threads = 2;
  std::string rpc_ip = "127.0.0.1";
  int64_t info_port = 10086;
  std::string ready_file;
  bool cpu_affinity = true;
  int64_t frame_timeout = 10;
  int64_t idle_timeout = 1800;
  int64_t conn_buffer_mb = 64;
  int64_t wal_flush_ms = 100;
  bool wal_sync = false;
};

void RegisterFlags(dm::FlagSet* f, ServerFlags* s) {
  f->String("db", &s->db, "store root; rank r uses <db>/r<r> (required)");
  f->Bool("use_existing_fs", &s->use_existing_fs,
          "serve existing stores read-only (DeltaFS read phase) instead of creating new ones");
  f->Bool("skip_fs_checks", &s->skip_fs_checks, "skip the existence check before each create");
  f->Int("ports_per_rank", &s->ports_per_rank, 1, 16, "listening ports per rank (clients spread over them)");
  f->Int("rpc_threads", &s->rpc_threads, 1, 64, "event-loop threads per rank");
  f->String("rpc_ip", &s->rpc_ip,
            "address the ranks listen on (the info endpoint too); host: each rank's host's own address, "
            "for ranks on several hosts");
  f->Int("info_port", &s->info_port, 0, 65535, "info endpoint port on rank 0 (0: any free port; see --ready_file)");
  f->String("ready_file", &s->ready_file,
            "when every rank listens, rank 0 writes the info URI to this file (removed at exit)");
  f->Bool("cpu_affinity", &s->cpu_affinity,
          "pin the shared-memory loop threads to this host's CPUs in turn (ranks, then loops), so that "
          "a client pinned to a CPU is served there (0: leave them to the scheduler)");
  f->Int("frame_timeout", &s->frame_timeout, 1, 3600,
         "seconds a request may take to arrive whole from its first byte, and a new connection to "
         "present the job's secret; a slower peer is disconnected");
  f->Int("idle_timeout", &s->idle_timeout, 0, 604800,
         "seconds a connection may go without a complete request before it is closed (a client holds "
         "its connections for its whole job; 0: never)");
  f->Int("conn_buffer_mb", &s->conn_buffer_mb, 1, 4096,
         "MiB of request bytes a rank buffers over all its connections beyond 1 KiB each; a "
         "connection whose frame would go over it is dropped");
  f->Int("wal_flush_ms", &s->wal_flush_ms, 0, 60000,
         "write the write-ahead log's buffer to its file at least this often, so a crash of the server "
         "loses at most this many milliseconds of acknowledged creates (0: only when the buffer fills)");
  f->Bool("wal_sync", &s->wal_sync,
          "sync every create to the device before acknowledging it (survives a machine crash; slow)");
}

// Atomically publishes `text` at `path`.
bool WriteReadyFile(const std::string& path, const std::string& text, std::string* error) {
  std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0 ||
      std::rename(tmp.c_str(), path.c_str()) != 0) {
    *error = "cannot write --ready_file " + path;
    return false;
  }
  return true;
}

void PrintHeader(const ServerFlags& f, const dm::StoreOptions& o, int ranks) {
  std::printf("%s", dm::HeaderPreamble().c_str());
  std::printf("rpc ip:             %s\n", f.rpc_ip.c_str());
  std::printf("rpc transport:      tcp\n");
  std::printf("Num rpc threads:    %lld\n", static_cast<long long>(f.rpc_threads));
  std::printf("Num ports per rank: %lld\n", static_cast<long long>(f.ports_per_rank));
  std::printf("Num ranks:          %d\n", ranks);
  std::printf("Fs use existing:    %d (readonly=%d)\n", f.use_existing_fs, f.use_existing_fs);
  std::printf("Fs info port:       %lld\n", static_cast<long long>(f.info_port));
  std::printf("Fs skip checks:     %d\n", f.skip_fs_checks);
  std::printf("CPU affinity:       %d\n", f.cpu_affinity);
  std::printf("WAL flush every:    %lld ms (sync=%d)\n", static_cast<long long>(f.wal_flush_ms), f.wal_sync);
  std::printf("MAIN DB:\n%s", o.HeaderText().c_str());
  std::printf("Use existing db:    %d\n", f.use_existing_fs);
  std::printf("Db: %s/r<rank>\n", f.db.c_str());
  std::printf("------------------------------------------------\n");
  std::fflush(stdout);
}

int Serve(const dm::MpiSession& mpi, const ServerFlags& flags, const dm::StoreOptions& options) {
  const std::string prefix = std::string(kTool) + "[r" + std::to_string(mpi.rank()) + "]";
  std::string error;

  const dm::StoreLayout layout{dm::StoreLayout::Kind::kPartition, static_cast<uint32_t>(mpi.rank()),
                               static_cast<uint32_t>(mpi.size())};
  const std::string path = flags.db + "/r" + std::to_string(mpi.rank());
  auto store = dm::Store::Open(path, flags.use_existing_fs ? dm::Store::Mode::kReadOnly : dm::Store::Mode::kCreate,
                               options, layout, &error);
  if (store && (store->layout().kind != layout.kind || store->layout().count != layout.count ||
                store->layout().index != layout.index)) {
    error = path + " holds " + store->layout().Describe() + " but this server is rank " +
            std::to_string(mpi.rank()) + " of " + std::to_string(mpi.size()) +
            ": start as many server ranks as the store was written for";
    store.reset();
  }
  // A store this server created is removed again if the server fails before serving, so
  // that the same command can simply be retried.
  const bool created = store != nullptr && !flags.use_existing_fs;
  auto abandon = [&]() {
    store.reset();
    if (created) {
      dm::StorageLocation where;
      std::string ignored;
      if (dm::StorageLocation::Resolve(path, &where, &ignored)) where.RemoveAll();
    }
    return 1;
  };
  if (!dm::AllRanksOk(store != nullptr, kTool, error, MPI_COMM_WORLD)) return abandon();

  const int threads = static_cast<int>(flags.rpc_threads);
  std::vector<int> loop_cpus;  // empty: none pinned
  if (flags.cpu_affinity) {
    const int first_slot = dm::HostRank(MPI_COMM_WORLD) * threads;
    const std::vector<int> cpus = dm::AllowedCpus();
    for (int i = 0; i < threads; i++) loop_cpus.push_back(dm::CpuForSlot(cpus, first_slot + i));
  }
  dm::MetadataService service(store.get(), layout.index, layout.count, !flags.skip_fs_checks, prefix);
  dm::RpcLimits limits{std::chrono::seconds(flags.frame_timeout), std::chrono::seconds(flags.idle_timeout),
                       static_cast<size_t>(flags.conn_buffer_mb) << 20};
  dm::RpcServer rpc(threads, &service, prefix, loop_cpus, limits);

  // Every rank listens, then all addresses are exchanged so any rank can answer info.
  char mine[kAddressSlot * 16] = {0};
  std::string ip = flags.rpc_ip;
  bool ok = ip != "host" || dm::HostAddress(&ip, &error);
  for (int p = 0; p < flags.ports_per_rank && ok; p++) {
    uint16_t port = rpc.Listen(ip, 0, &error);
    ok = port != 0;
    std::snprintf(mine + p * kAddressSlot, kAddressSlot, "%s:%u", ip.c_str(), port);
  }
  uint16_t info_port = 0;
  if (ok && mpi.rank() == 0) {
    info_port = rpc.Listen(ip, static_cast<uint16_t>(flags.info_port), &error);
    ok = info_port != 0;
    if (!ok) error += " (the info port: is another server running? pick another --info_port)";
  }
  if (!dm::AllRanksOk(ok, kTool, error, MPI_COMM_WORLD)) return abandon();

  const int slot_bytes = kAddressSlot * static_cast<int>(flags.ports_per_rank);
  std::vector<char> all(static_cast<size_t>(slot_bytes) * mpi.size());
  MPI_Request req;
  MPI_Iallgather(mine, slot_bytes, MPI_CHAR, all.data(), slot_bytes, MPI_CHAR, MPI_COMM_WORLD, &req);
  dm::QuietWait(&req);
  dm::InfoReply info;
  info.ports_per_rank = static_cast<uint32_t>(flags.ports_per_rank);
  for (size_t i = 0; i < all.size(); i += kAddressSlot) info.addresses.emplace_back(&all[i]);
  service.SetInfo(info);

  // Listening sockets queue connections already, so readiness can be published before
  // the loops start.
  const std::string uri = "tcp://" + ip + ":" + std::to_string(info_port);
  ok = mpi.rank() != 0 || flags.ready_file.empty() || WriteReadyFile(flags.ready_file, uri + "\n", &error);
  if (!dm::AllRanksOk(ok, kTool, error, MPI_COMM_WORLD)) return abandon();
  rpc.Start();
  if (mpi.rank() == 0) {
    std::printf("Info endpoint:      %s\nRunning...\n", uri.c_str());
    std::fflush(stdout);
  }
  rpc.Wait();

  rocksdb::Status s = store->Close();
  if (!s.ok()) dm::PrintError(kTool, "cannot close store " + path + " cleanly: " + s.ToString());
  if (mpi.rank() == 0) {
    if (!flags.ready_file.empty()) std::remove(flags.ready_file.c_str());
    std::printf("Bye\n");
    std::fflush(stdout);
  }
  return s.ok() ? 0 : 1;
}

int Run(const dm::MpiSession& mpi, int argc, char** argv) {
  ServerFlags flags;
  dm::FlagSet set(kTool, "Metadata server job: one partition per MPI rank, stopped by SIGINT/SIGTERM.");
  RegisterFlags(&set, &flags);
  dm::StoreOptions options;
  int exit_code = dm::ParseToolArgs(
      mpi, kTool, &set, argc, argv,
      [&flags] { return flags.db.empty() ? "--db is required (the store root directory)" : ""; }, &options);
  if (exit_code >= 0) return exit_code;
  if (flags.use_existing_fs) options.disable_write_ahead_logging = true;
  options.checked_creates = !flags.use_existing_fs && !flags.skip_fs_checks;
  options.wal_flush_ms = flags.wal_flush_ms;
  options.wal_sync = flags.wal_sync;
  if (!flags.use_existing_fs) options.space_reserve = options.SpaceReserve();
  if (mpi.rank() == 0) PrintHeader(flags, options, mpi.size());
  return Serve(mpi, flags, options);
}

}  // namespace

int main(int argc, char** argv) {
  dm::KeepLargeAllocationsMapped();
  dm::MpiSession mpi(&argc, &argv);
  return mpi.Finish(Run(mpi, argc, argv));
}
