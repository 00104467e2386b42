// Settings of the metadata stores, with the seed guide's defaults, read from the
// environment variables it uses (DELTAFS_Db_<name>), and mapped onto RocksDB options.
// The full list and mapping is documented in core/README.md ("Store settings").
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>
#include <rocksdb/options.h>

#include "deltameta/status.h"

namespace deltameta {

struct StoreOptions {
  int64_t memtable_size = 8 << 20;            // memtable_size -> write_buffer_size
  int64_t table_size = 4 << 20;               // table_size -> target_file_size_base
  int64_t block_size = 4 << 10;               // block_size -> BlockBasedTableOptions::block_size
  int64_t block_cache_size = 0;               // block_cache_size -> block cache (0: none)
  int64_t bloom_bits = 10;                    // bloom_bits -> Bloom filter bits per key
  int64_t level_factor = 8;                   // level_factor -> max_bytes_for_level_multiplier
  int64_t l1_compaction_trigger = 5;          // l1_compaction_trigger -> level0_file_num_compaction_trigger
  int64_t l0_soft_limit = 8;                  // l0_soft_limit -> level0_slowdown_writes_trigger
  int64_t l0_hard_limit = 12;                 // l0_hard_limit -> level0_stop_writes_trigger
  bool compression = CompressionAvailable();  // compression -> Snappy (1) or none (0)
  bool disable_compaction = false;            // disable_compaction -> disable_auto_compactions
  bool disable_write_ahead_logging = false;   // disable_write_ahead_logging -> WriteOptions::disableWAL
  int64_t write_ahead_log_buffer = 64 << 10;  // write_ahead_log_buffer -> buffered WAL of this size
  // Not an environment setting: set for write-only stores (the DeltaFS write phase), whose
  // memtable is an unsorted vector sorted once at flush, which is cheap to insert into
  // but slow to read before it is flushed. Their memtables, the one being written and the
  // one being flushed, hold at most memtable_size together (each half of it; a write waits
  // for the flush when both are full), and, as with scan_only below, their tables' index
  // and filter blocks are not kept, nor more than 10 of the tables open, so a writer's
  // memory does not grow with the tables it wrote.
  bool write_only = false;
  // With write_only: how many entries the vector memtable's index is reserved for, so it
  // never copies itself while growing (reserved address space costs memory only as used).
  uint64_t write_only_entries = 0;
  // Not an environment setting: set for stores that are only scanned once in key order
  // (the compactor's origin stores): their tables' index and filter blocks are read through
  // a small block cache (kTableMetadataCacheBytes, or block_cache_size if larger) instead of
  // being held for every table of the store, and RocksDB does not read ahead on its own, so
  // reading a store costs per table only the index block and the data block its iterator
  // is on (the index blocks: about 0.25 bytes per entry of the store), plus the readahead
  // the iterator asks for.
  bool scan_only = false;
  static constexpr int64_t kTableMetadataCacheBytes = 256 << 10;
  // Not an environment setting: set for stores that serve creates, each after a check that
  // the name is new (IndexFS servers). The memtable then keeps a whole-key Bloom filter,
  // which answers the check of a new name (with RocksDB's skip list, a quarter of a
  // create's work was that check's search). Stores that are neither write_only nor
  // scan_only find memtable entries through a hash of their key (store/hashed_memtable.h).
  bool checked_creates = false;
  // Not environment settings: how long an acknowledged write may wait in the buffered
  // write-ahead log before it reaches the file (a store thread writes the buffer out at
  // this interval; 0: only when the buffer fills, as the seed guide's prototype), and
  // whether every write is synced to the device before it returns (the buffer is then
  // not used). Servers set them from --wal_flush_ms and --wal_sync (core/doc/failures.md).
  int64_t wal_flush_ms = 0;
  bool wal_sync = false;
  // Not an environment setting: the free space (bytes) a writable local store keeps for
  // its close (the memtable's flush) and its compactions; 0: none kept. Servers and the
  // DeltaFS writer set SpaceReserve().
  int64_t space_reserve = 0;
  // Room for one memtable flush, a compaction's worth of tables and the log buffer.
  int64_t SpaceReserve() const { return memtable_size + 4 * table_size + write_ahead_log_buffer; }

  // Whether this build has Snappy (CMake DELTAMETA_WITH_SNAPPY). Without it compression
  // defaults to none and DELTAFS_Db_compression=1 is an error.
  static bool CompressionAvailable();

  // Overrides the defaults from DELTAFS_Db_* variables. A failure (nothing overridden)
  // names the variable if one is unknown or its value is malformed or out of range.
  Status LoadFromEnvironment();

  rocksdb::Options ToRocksDb() const;
  rocksdb::WriteOptions ToWriteOptions() const;
  nlohmann::json ToJson() const;
  // The settings block of the tools' header, as the seed guide prints it.
  std::string HeaderText() const;
};

}  // namespace deltameta
