// deltameta_compactor: the DeltaFS parallel compaction job (the seed guide's
// parallel_compactor). Rank k reads the write phase's origin stores <src_dir>/r<j> with
// j % ranks == k, shuffles every entry over MPI to the rank owning its name's partition,
// and writes its partition, sorted, as table files ingested into <dst_dir>/r<k>. The
// compacted stores are then served read-only by as many server ranks as compactor ranks.
#include <cstdio>
#include <memory>

#include "deltameta/build_info.h"
#include "deltameta/flags.h"
#include "deltameta/malloc_policy.h"
#include "deltameta/tool_args.h"
#include "deltameta/key.h"
#include "deltameta/mpi_util.h"
#include "deltameta/partition.h"
#include "deltameta/partition_builder.h"
#include "deltameta/job_report.h"
#include "deltameta/shuffle.h"
#include "deltameta/store.h"

namespace dm = deltameta;

namespace {

constexpr char kTool[] = "deltameta_compactor";
using Clock = std::chrono::steady_clock;

struct CompactorFlags {
  std::string src_dir, dst_dir;
  bool overwrite = false;
  int64_t batch_kb = 128;
  std::string json;
};

void RegisterFlags(dm::FlagSet* f, CompactorFlags* c) {
  f->String("src_dir", &c->src_dir, "root of the DeltaFS write phase's stores (<src_dir>/r<rank>) (required)");
  f->String("dst_dir", &c->dst_dir, "root of the compacted stores, one per rank (<dst_dir>/r<rank>) (required)");
  f->Bool("overwrite", &c->overwrite, "replace an existing --dst_dir (otherwise refused)");
  f->Int("batch_kb", &c->batch_kb, 4, 1 << 20, "shuffle batch per peer per round, in KiB");
  f->String("json", &c->json, "write the phase's JSON document to this file");
  const char* compat = "accepted for the seed guide's command lines; unused (the shuffle runs over MPI)";
  for (const char* name : {"rpc_async_sender_threads", "rpc_worker_threads", "rpc_batch_min", "rpc_batch_max",
                           "rpc_threads", "rpc_timeout"}) {
    f->Compat(name, compat);
  }
}

// Finds the origin stores: <src>/r0 .. r<count-1>, each marked "origin store i of count".
bool FindSources(const std::string& src_uri, uint32_t* count, std::string* error) {
  dm::StorageLocation src;
  if (!dm::StorageLocation::Resolve(src_uri, &src, error)) return false;
  if (!src.Exists()) {
    *error = "source " + src_uri + " does not exist: pass the --db of a DeltaFS write phase as --src_dir";
    return false;
  }
  dm::StoreLayout first;
  if (!dm::ReadLayout(src.Child("r0"), &first, error)) {
    *error += ": pass the --db of a DeltaFS write phase as --src_dir";
    return false;
  }
  for (uint32_t i = 0; i < first.count; i++) {
    const dm::StorageLocation dir = src.Child("r" + std::to_string(i));
    dm::StoreLayout l;
    if (!dm::ReadLayout(dir, &l, error)) return false;
    if (l.kind != dm::StoreLayout::Kind::kOrigin || l.index != i || l.count != first.count) {
      *error = dir.uri() + " holds " + l.Describe() + ", expected origin store " + std::to_string(i) + " of " +
               std::to_string(first.count);
      return false;
    }
  }
  *count = first.count;
  return true;
}

// Chains the entries of this rank's origin stores, checking each one as it goes.
class OriginSource : public dm::EntrySource {
 public:
  OriginSource(std::vector<std::unique_ptr<dm::Store>> stores, uint32_t partitions)
      : stores_(std::move(stores)), partitions_(partitions) {
    Advance(true);
  }
  bool Valid() const override { return it_ && it_->Valid(); }
  std::string_view key() const override { return Slice(it_->key()); }
  std::string_view value() const override { return Slice(it_->value()); }
  int owner() const override { return owner_; }
  void Next() override {
    it_->Next();
    Advance(false);
  }

 private:
  static std::string_view Slice(const rocksdb::Slice& s) { return std::string_view(s.data(), s.size()); }

  // Moves to the next valid entry, crossing into the next store as needed.
  void Advance(bool fresh) {
    for (;;) {
      if (fresh || (it_ && !it_->Valid())) {
        if (it_ && !it_->status().ok()) Corrupt("read error: " + it_->status().ToString());
        if (next_store_ == stores_.size()) {
          it_.reset();
          return;
        }
        it_ = stores_[next_store_++]->NewIterator();
        it_->SeekToFirst();
        fresh = false;
        continue;
      }
      if (!it_) return;
      uint64_t dir;
      std::string_view name;
      dm::FileStat stat;
      if (!dm::DecodeKey(key(), &dir, &name) || !dm::DecodeStat(value(), &stat)) Corrupt("malformed entry");
      owner_ = static_cast<int>(dm::PartitionOf(name, partitions_));
      return;
    }
  }

  [[noreturn]] void Corrupt(const std::string& what) {
    dm::AbortJob(kTool, "source store " + stores_[next_store_ - 1]->location().uri() + " is corrupt (" + what +
                            "): rerun the write phase");
  }

  std::vector<std::unique_ptr<dm::Store>> stores_;
  uint32_t partitions_;
  size_t next_store_ = 0;
  std::unique_ptr<rocksdb::Iterator> it_;
  int owner_ = 0;
};

void PrintHeader(const CompactorFlags& f, const dm::StoreOptions& o, int ranks) {
  std::printf("%s", dm::HeaderPreamble().c_str());
  std::printf("DELTAMETA PARALLEL COMPACTOR\n");
  std::printf("shuffle:            MPI all-to-all, %lld KB per peer per round\n", static_cast<long long>(f.batch_kb));
  std::printf("num ranks:          %d\n", ranks);
  std::printf("SOURCE DB:\nDb: %s/r<rank>\n", f.src_dir.c_str());
  std::printf("DESTINATION DB:\n%s", o.HeaderText().c_str());
  std::printf("Db force cleaning:  %d\n", f.overwrite);
  std::printf("Db: %s/r<rank>\n", f.dst_dir.c_str());
  std::printf("------------------------------------------------\n");
  std::fflush(stdout);
}

int Compact(const dm::MpiSession& mpi, const CompactorFlags& flags, const dm::StoreOptions& options,
            nlohmann::json params) {
  std::string error;
  uint32_t sources = 0;
  bool ok = FindSources(flags.src_dir, &sources, &error);
  dm::StorageLocation dst;
  ok = ok && dm::StorageLocation::Resolve(flags.dst_dir, &dst, &error);
  if (ok && mpi.rank() == 0 && dst.HasEntries()) {
    if (!flags.overwrite) {
      error = "destination " + flags.dst_dir + " exists and is not empty: remove it or pass --overwrite=1";
      ok = false;
    } else {
      rocksdb::Status s = dst.RemoveAll();
      if (!s.ok()) error = "cannot clear destination " + flags.dst_dir + ": " + s.ToString();
      ok = s.ok();
    }
  }
  if (!dm::AllRanksOk(ok, kTool, error, MPI_COMM_WORLD)) return 1;

  const std::string path = dst.Child("r" + std::to_string(mpi.rank())).uri();
  const dm::StorageLocation staging = dst.Child("staging-r" + std::to_string(mpi.rank()));
  std::vector<std::unique_ptr<dm::Store>> mine;
  for (uint32_t j = static_cast<uint32_t>(mpi.rank()); j < sources && ok; j += static_cast<uint32_t>(mpi.size())) {
    auto s = dm::Store::Open(flags.src_dir + "/r" + std::to_string(j), dm::Store::Mode::kReadOnly, options, {}, &error);
    ok = s != nullptr;
    if (ok) mine.push_back(std::move(s));
  }
  rocksdb::Status created = ok ? staging.CreateDirs() : rocksdb::Status::OK();
  if (!created.ok()) error = "cannot create " + staging.uri() + ": " + created.ToString();
  if (!dm::AllRanksOk(ok && created.ok(), kTool, error, MPI_COMM_WORLD)) return 1;

  if (mpi.rank() == 0) std::printf("Bootstrapping...\nRunning...\n"), std::fflush(stdout);
  dm::QuietBarrier(MPI_COMM_WORLD);
  const double cpu0 = dm::ProcessCpuSeconds();
  const auto t0 = Clock::now();

  OriginSource source(std::move(mine), static_cast<uint32_t>(mpi.size()));
  dm::PartitionBuilder builder;
  dm::ShuffleStats shuffle;
  dm::ShuffleEntries(MPI_COMM_WORLD, static_cast<size_t>(flags.batch_kb) << 10, &source,
                     [&builder](std::string records) {
                       if (!builder.AddRecords(std::move(records))) dm::AbortJob(kTool, "a shuffle batch is malformed");
                     },
                     &shuffle);
  dm::RankPhase rp;
  const dm::StoreLayout layout{dm::StoreLayout::Kind::kPartition, static_cast<uint32_t>(mpi.rank()),
                               static_cast<uint32_t>(mpi.size())};
  if (!builder.Build(staging, path, options, layout, &rp.counters.exists, &error)) dm::AbortJob(kTool, error);
  staging.RemoveAll();
  rp.counters.ops = shuffle.entries_received;
  rp.elapsed_s = std::chrono::duration<double>(Clock::now() - t0).count();
  rp.cpu_s = dm::ProcessCpuSeconds() - cpu0;
  dm::QuietBarrier(MPI_COMM_WORLD);

  uint64_t sent = 0, received = 0;
  dm::QuietReduce(&shuffle.entries_sent, &sent, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  dm::QuietReduce(&shuffle.entries_received, &received, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  dm::JobPhase job = dm::MergeRanks(rp, MPI_COMM_WORLD);
  if (mpi.rank() != 0) return 0;
  std::printf("Done!\n%s\n", dm::ResultLine("mapreduce", job).c_str());
  if (job.counters.exists > 0) {
    std::printf("errors: %llu names found in more than one source store (kept once)\n",
                static_cast<unsigned long long>(job.counters.exists));
  }
  std::printf("Bye\n");
  std::fflush(stdout);
  if (sent != received) {
    dm::PrintError(kTool, "shuffle lost entries: " + std::to_string(sent) + " sent, " + std::to_string(received) +
                              " received");
    return 1;
  }
  params["source_stores"] = sources;
  dm::JsonLinesFile json;
  if (!json.Open(flags.json, &error)) {
    dm::PrintError(kTool, error);
    return 1;
  }
  json.Append(dm::PhaseJson(kTool, "compaction", job, params, false));
  return job.counters.errors() == 0 ? 0 : 1;
}

int Run(const dm::MpiSession& mpi, int argc, char** argv) {
  CompactorFlags flags;
  dm::FlagSet set(kTool, "DeltaFS parallel compaction job: one output partition per MPI rank.");
  RegisterFlags(&set, &flags);
  dm::StoreOptions options;
  int exit_code = dm::ParseToolArgs(mpi, kTool, &set, argc, argv, [&flags] {
    return flags.src_dir.empty() || flags.dst_dir.empty() ? "--src_dir and --dst_dir are required" : "";
  }, &options);
  if (exit_code >= 0) return exit_code;
  if (mpi.rank() == 0) PrintHeader(flags, options, mpi.size());
  nlohmann::json params = set.Values();
  params["ranks"] = mpi.size();
  params["store"] = options.ToJson();
  return Compact(mpi, flags, options, params);
}

}  // namespace

int main(int argc, char** argv) {
  dm::KeepLargeAllocationsMapped();
  dm::MpiSession mpi(&argc, &argv);
  return mpi.Finish(Run(mpi, argc, argv));
}
