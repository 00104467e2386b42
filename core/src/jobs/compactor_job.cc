// The parallel compaction job: see compactor_job.h.
#include "jobs/compactor_job.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "compactor/compactor_flags.h"
#include "compactor/origin_source.h"
#include "compactor/partition_builder.h"
#include "deltameta/layout.h"
#include "deltameta/store.h"
#include "jobs/job_report.h"
#include "jobs/mpi_util.h"
#include "jobs/shuffle.h"
#include "jobs/tool_args.h"

namespace deltameta {
namespace {

constexpr char kTool[] = "deltameta_compactor";
using Clock = std::chrono::steady_clock;

int Compact(const MpiSession& mpi, const CompactorFlags& flags, const StoreOptions& options, nlohmann::json params) {
  uint32_t sources = 0;
  Status s = FindOriginStores(flags.src_dir, &sources);
  StorageLocation dst;
  if (s.ok()) s = StorageLocation::Resolve(flags.dst_dir, &dst);
  bool taken = false;
  if (s.ok() && mpi.rank() == 0) s = dst.HasEntries(&taken).WithContext("cannot check that the destination is empty");
  if (s.ok() && taken) {
    s = flags.overwrite ? dst.RemoveAll().WithContext("cannot clear destination " + flags.dst_dir)
                        : Status::InvalidArgument("destination " + flags.dst_dir +
                                                  " exists and is not empty: remove it or pass --overwrite=1");
  }
  if (!AllRanksOk(s.ok(), kTool, s.ToString(), MPI_COMM_WORLD)) return 1;

  const uint32_t rank = static_cast<uint32_t>(mpi.rank()), ranks = static_cast<uint32_t>(mpi.size());
  const std::string path = RankStore(dst, rank).uri();
  const StorageLocation staging = dst.Child("staging-r" + std::to_string(rank));
  std::vector<std::unique_ptr<Store>> mine;
  StoreOptions scan = options;
  scan.scan_only = true;
  for (uint32_t j = rank; j < sources && s.ok(); j += ranks) {
    std::unique_ptr<Store> store;
    s = Store::Open(RankStore(flags.src_dir, j), Store::Mode::kReadOnly, scan,
                    StoreLayout{StoreLayout::Kind::kOrigin, j, sources}, &store);
    if (s.ok()) mine.push_back(std::move(store));
  }
  if (s.ok()) s = staging.CreateDirs().WithContext("cannot create " + staging.uri());
  if (!AllRanksOk(s.ok(), kTool, s.ToString(), MPI_COMM_WORLD)) return 1;

  if (mpi.rank() == 0) std::printf("Bootstrapping...\nRunning...\n"), std::fflush(stdout);
  QuietBarrier(MPI_COMM_WORLD);
  const double cpu0 = ProcessCpuSeconds();
  const auto t0 = Clock::now();

  OriginSource source(std::move(mine), ranks, [](const std::string& message) { AbortJob(kTool, message); });
  // The partition's entries and their index take at most half of table_size; the batch
  // arriving and the merge's buffers (at most the other half) come on top (partition_builder.h).
  PartitionBuilder builder(staging, static_cast<size_t>(options.table_size / 2));
  ShuffleStats shuffle;
  ShuffleEntries(
      MPI_COMM_WORLD, static_cast<size_t>(flags.batch_kb) << 10, &source,
      [&builder](std::string records) {
        std::string why;
        if (!builder.AddRecords(std::move(records), &why)) AbortJob(kTool, why);
      },
      &shuffle);
  RankPhase rp;
  const StoreLayout layout{StoreLayout::Kind::kPartition, rank, ranks};
  std::string error;
  if (!builder.Build(path, options, layout, &rp.counters.exists, &error)) AbortJob(kTool, error);
  staging.RemoveAll();
  rp.counters.ops = shuffle.entries_received;
  rp.elapsed_s = std::chrono::duration<double>(Clock::now() - t0).count();
  rp.cpu_s = ProcessCpuSeconds() - cpu0;
  QuietBarrier(MPI_COMM_WORLD);

  uint64_t sent = 0, received = 0;
  QuietReduce(&shuffle.entries_sent, &sent, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  QuietReduce(&shuffle.entries_received, &received, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  JobPhase job = MergeRanks(rp, MPI_COMM_WORLD);
  const uint64_t peak_kib = JobPeakResidentKib(MPI_COMM_WORLD);
  if (mpi.rank() != 0) return 0;
  std::printf("Done!\n%s\n", ResultLine("mapreduce", job).c_str());
  if (job.counters.exists > 0) {
    std::printf("errors: %llu names found in more than one source store (kept once)\n",
                static_cast<unsigned long long>(job.counters.exists));
  }
  std::printf("Bye\n");
  std::fflush(stdout);
  if (sent != received) {
    PrintError(kTool,
               "shuffle lost entries: " + std::to_string(sent) + " sent, " + std::to_string(received) + " received");
    return 1;
  }
  params["source_stores"] = sources;
  JsonLinesFile json;
  if (!json.Open(flags.json, &error)) {
    PrintError(kTool, error);
    return 1;
  }
  nlohmann::json doc = PhaseJson(kTool, "compaction", job, params, false);
  doc["peak_resident_kib"] = peak_kib;
  json.Append(doc);
  return job.counters.errors() == 0 ? 0 : 1;
}

}  // namespace

int RunCompactorJob(const MpiSession& mpi, int argc, char** argv) {
  CompactorFlags flags;
  FlagSet set(kTool, "DeltaFS parallel compaction job: one output partition per MPI rank.");
  RegisterCompactorFlags(&set, &flags);
  StoreOptions options;
  int exit_code = ParseToolArgs(
      mpi, kTool, &set, argc, argv, [&flags] { return CheckCompactorFlags(flags); }, &options);
  if (exit_code >= 0) return exit_code;
  if (mpi.rank() == 0) PrintCompactorHeader(flags, options, mpi.size());
  nlohmann::json params = set.Values();
  params["ranks"] = mpi.size();
  params["store"] = options.ToJson();
  return Compact(mpi, flags, options, params);
}

}  // namespace deltameta
