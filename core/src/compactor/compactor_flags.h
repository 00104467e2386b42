// The parallel compaction job's command line (deltameta_compactor, the seed guide's
// parallel_compactor): its flags with their defaults, their check and the header it prints.
#pragma once

#include <cstdint>
#include <string>

#include "deltameta/flags.h"
#include "deltameta/store_options.h"

namespace deltameta {

struct CompactorFlags {
  std::string src_dir, dst_dir;
  bool overwrite = false;
  int64_t batch_kb = 128;
  std::string json;
};

// Also accepts, and ignores, the seed guide's RPC flags (the shuffle runs over MPI).
void RegisterCompactorFlags(FlagSet* set, CompactorFlags* flags);

// What is wrong with the flags taken together, or "" if nothing is.
std::string CheckCompactorFlags(const CompactorFlags& flags);

// Prints the job's header (rank 0), as the seed guide's compactor does.
void PrintCompactorHeader(const CompactorFlags& flags, const StoreOptions& options, int ranks);

}  // namespace deltameta
