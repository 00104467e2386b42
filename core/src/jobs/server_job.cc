// The metadata server job: see server_job.h.
#include "jobs/server_job.h"

#include <cstdio>

#include "deltameta/layout.h"
#include "deltameta/store.h"
#include "jobs/mpi_util.h"
#include "jobs/tool_args.h"
#include "rpc/rpc_server.h"
#include "rpc/transport.h"
#include "server/metadata_service.h"
#include "server/server_flags.h"
#include "util/cpu_placement.h"

namespace deltameta {
namespace {

constexpr char kTool[] = "deltameta_server";

int Serve(const MpiSession& mpi, const ServerFlags& flags, const StoreOptions& options) {
  const std::string prefix = std::string(kTool) + "[r" + std::to_string(mpi.rank()) + "]";
  std::string error;

  const StoreLayout layout{StoreLayout::Kind::kPartition, static_cast<uint32_t>(mpi.rank()),
                           static_cast<uint32_t>(mpi.size())};
  const std::string path = RankStore(flags.db, layout.index);
  std::unique_ptr<Store> store;
  const Status opened =
      Store::Open(path, flags.use_existing_fs ? Store::Mode::kReadOnly : Store::Mode::kCreate, options, layout, &store);
  // A store this server created is removed again if the server fails before serving, so
  // that the same command can simply be retried.
  const bool created = store != nullptr && !flags.use_existing_fs;
  auto abandon = [&]() {
    store.reset();
    if (created) {
      StorageLocation where;
      if (StorageLocation::Resolve(path, &where).ok()) where.RemoveAll();
    }
    return 1;
  };
  if (!AllRanksOk(opened.ok(), kTool, opened.ToString(), MPI_COMM_WORLD)) return abandon();

  const int threads = static_cast<int>(flags.rpc_threads);
  std::vector<int> loop_cpus;  // empty: none pinned
  if (flags.cpu_affinity) {
    const int first_slot = HostRank(MPI_COMM_WORLD) * threads;
    const std::vector<int> cpus = AllowedCpus();
    for (int i = 0; i < threads; i++) loop_cpus.push_back(CpuForSlot(cpus, first_slot + i));
  }
  MetadataService service(store.get(), layout.index, layout.count, !flags.skip_fs_checks, prefix);
  service.SetInlineDataMax(static_cast<uint32_t>(flags.inline_data_max));
  RpcLimits limits{std::chrono::seconds(flags.frame_timeout), std::chrono::seconds(flags.idle_timeout),
                   static_cast<size_t>(flags.conn_buffer_mb) << 20};
  RpcServer rpc(threads, &service, prefix, loop_cpus, limits);

  // Every rank listens, then all addresses are exchanged so any rank can answer info.
  std::vector<std::string> mine;
  std::string ip = flags.rpc_ip;
  bool ok = ip != "host" || HostAddress(&ip, &error);
  for (int p = 0; p < flags.ports_per_rank && ok; p++) {
    uint16_t port = rpc.Listen(ip, 0, &error);
    ok = port != 0;
    mine.push_back(ip + ":" + std::to_string(port));
  }
  uint16_t info_port = 0;
  if (ok && mpi.rank() == 0) {
    info_port = rpc.Listen(ip, static_cast<uint16_t>(flags.info_port), &error);
    ok = info_port != 0;
    if (!ok) error += " (the info port: is another server running? pick another --info_port)";
  }
  if (!AllRanksOk(ok, kTool, error, MPI_COMM_WORLD)) return abandon();

  InfoReply info;
  info.ports_per_rank = static_cast<uint32_t>(flags.ports_per_rank);
  info.addresses = ExchangeAddresses(mine, MPI_COMM_WORLD);
  service.SetInfo(info);

  // Listening sockets queue connections already, so readiness can be published before
  // the loops start.
  const std::string uri = "tcp://" + ip + ":" + std::to_string(info_port);
  ok = mpi.rank() != 0 || flags.ready_file.empty() || WriteReadyFile(flags.ready_file, uri + "\n", &error);
  if (!AllRanksOk(ok, kTool, error, MPI_COMM_WORLD)) return abandon();
  rpc.Start();
  if (mpi.rank() == 0) {
    std::printf("Info endpoint:      %s\nRunning...\n", uri.c_str());
    std::fflush(stdout);
  }
  rpc.Wait();

  const Status s = store->Close();
  if (!s.ok()) PrintError(kTool, s.WithContext("cannot close store " + path + " cleanly").ToString());
  if (mpi.rank() == 0) {
    if (!flags.ready_file.empty()) std::remove(flags.ready_file.c_str());
    std::printf("Bye\n");
    std::fflush(stdout);
  }
  return s.ok() ? 0 : 1;
}

}  // namespace

std::vector<std::string> ExchangeAddresses(const std::vector<std::string>& mine, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const int slot_bytes = kAddressSlot * static_cast<int>(mine.size());
  std::vector<char> packed(static_cast<size_t>(slot_bytes), 0);
  for (size_t p = 0; p < mine.size(); p++) {
    std::snprintf(&packed[p * kAddressSlot], kAddressSlot, "%s", mine[p].c_str());
  }
  std::vector<char> all(static_cast<size_t>(slot_bytes) * static_cast<size_t>(ranks));
  MPI_Request req;
  MPI_Iallgather(packed.data(), slot_bytes, MPI_CHAR, all.data(), slot_bytes, MPI_CHAR, comm, &req);
  QuietWait(&req);
  std::vector<std::string> addresses;
  for (size_t i = 0; i < all.size(); i += kAddressSlot) addresses.emplace_back(&all[i]);
  return addresses;
}

int RunServerJob(const MpiSession& mpi, int argc, char** argv) {
  ServerFlags flags;
  FlagSet set(kTool, "Metadata server job: one partition per MPI rank, stopped by SIGINT/SIGTERM.");
  RegisterServerFlags(&set, &flags);
  StoreOptions options;
  int exit_code = ParseToolArgs(
      mpi, kTool, &set, argc, argv, [&flags] { return CheckServerFlags(flags); }, &options);
  if (exit_code >= 0) return exit_code;
  ApplyServerFlags(flags, &options);
  if (mpi.rank() == 0) PrintServerHeader(flags, options, mpi.size());
  return Serve(mpi, flags, options);
}

}  // namespace deltameta
