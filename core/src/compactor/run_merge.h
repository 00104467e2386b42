// The k-way merge of the partition builder's sorted runs (partition_builder.h): one
// RunReader per run, each holding one buffer, so a merge of k runs costs k buffers.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include <rocksdb/status.h>

#include "compactor/run_file.h"

namespace deltameta {

// Where merged records go, in key order.
using RecordSink = std::function<rocksdb::Status(std::string_view key, std::string_view value)>;

// Passes the records of `runs` (opened, each sorted by key, listed in arrival order) to
// `out` in key order. Of records with equal keys only the first of the earliest run goes
// out; the others are counted in *duplicates. Stops at the first error of a run or of `out`.
rocksdb::Status MergeRuns(const std::vector<RunReader*>& runs, const RecordSink& out, uint64_t* duplicates);

}  // namespace deltameta
