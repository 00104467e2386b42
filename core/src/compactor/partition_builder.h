// Collects one partition's entries in any order and writes them sorted into a new store:
// the receiving end of the parallel compaction. Its memory is bounded by `bound_bytes`
// (the compactor passes half the store's table_size, DELTAFS_Db_table_size), whatever the
// partition's size: entries are held as entry records (entry_record.h), shuffle batches
// as they arrived, until the records and the 8-byte index that sorts them would exceed
// the bound with the next batch; then they are sorted and spilled to `staging` as a run
// file (run_file.h). Build merges the runs, each read through a buffer of kRunBufferBytes,
// at most bound_bytes / 2 of buffers at once (more runs are merged in passes), into one
// sorted sequence of tables: the store is the same as if everything had been held, one
// sorted level of tables of about table_size. A partition that fits the bound is never
// spilled.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compactor/run_merge.h"
#include "deltameta/layout.h"
#include "deltameta/storage.h"
#include "deltameta/store_options.h"

namespace deltameta {

class PartitionBuilder {
 public:
  // The read or write buffer of one run file.
  static constexpr size_t kRunBufferBytes = 32 << 10;

  // Run files and tables go to `staging`, which must exist.
  PartitionBuilder(const StorageLocation& staging, size_t bound_bytes);

  // Takes `records`, whole entry records back to back (a shuffle batch), as they are. False
  // with *error, taking nothing, if they are not whole records or a spill failed.
  bool AddRecords(std::string records, std::string* error);
  uint64_t size() const { return count_; }
  // Runs spilled so far.
  size_t runs() const { return runs_.size(); }

  // Writes the entries sorted as tables under staging and ingests them into a new store at
  // `uri` with `layout`. A key added more than once is written once (the first value, in
  // arrival order) and counted in *duplicates. False with *error naming the location on
  // failure.
  bool Build(const std::string& uri, const StoreOptions& options, const StoreLayout& layout, uint64_t* duplicates,
             std::string* error);

 private:
  // Sorts what is held into a new run file and lets it go.
  bool Spill(std::string* error);
  // Merges runs_[first, first + count) into `out` (run_merge.h).
  rocksdb::Status MergeRuns(size_t first, size_t count, const RecordSink& out);
  // Merges them into a new run file *merged and removes them.
  bool MergeIntoRun(size_t first, size_t count, StorageLocation* merged, std::string* error);
  // The held records' starts, stably sorted by key.
  std::vector<const char*> SortedHeld() const;
  StorageLocation NextRunFile();

  StorageLocation staging_;
  size_t bound_;
  std::vector<std::string> blocks_;  // held batches, each whole records
  size_t held_bytes_ = 0;
  uint64_t held_count_ = 0, count_ = 0;
  uint64_t duplicates_ = 0;  // keys found again, while spilling and merging
  std::vector<StorageLocation> runs_;
  uint64_t run_files_ = 0;
};

}  // namespace deltameta
