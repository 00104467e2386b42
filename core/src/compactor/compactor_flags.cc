// The compaction job's command line: see compactor_flags.h.
#include "compactor/compactor_flags.h"

#include <cstdio>

#include "util/build_info.h"

namespace deltameta {

void RegisterCompactorFlags(FlagSet* f, CompactorFlags* c) {
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

std::string CheckCompactorFlags(const CompactorFlags& flags) {
  return flags.src_dir.empty() || flags.dst_dir.empty() ? "--src_dir and --dst_dir are required" : "";
}

void PrintCompactorHeader(const CompactorFlags& f, const StoreOptions& o, int ranks) {
  std::printf("%s", HeaderPreamble().c_str());
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

}  // namespace deltameta
