// Store settings as RocksDB options: see store_options.h. Apart from the rest of
// StoreOptions, so that programs without a store (the RPC client) do not link RocksDB.
#include <algorithm>
#include <memory>

#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include "deltameta/store_options.h"
#include "store/hashed_memtable.h"
#include "store/sorted_vector_memtable.h"

namespace deltameta {

rocksdb::Options StoreOptions::ToRocksDb() const {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.error_if_exists = false;
  o.write_buffer_size = static_cast<size_t>(memtable_size);
  o.target_file_size_base = static_cast<uint64_t>(table_size);
  o.max_bytes_for_level_multiplier = static_cast<double>(level_factor);
  o.max_bytes_for_level_base = static_cast<uint64_t>(table_size) * static_cast<uint64_t>(level_factor);
  o.level0_file_num_compaction_trigger = static_cast<int>(l1_compaction_trigger);
  o.compression = compression ? rocksdb::kSnappyCompression : rocksdb::kNoCompression;
  o.disable_auto_compactions = disable_compaction;
  if (disable_compaction) {
    // Nothing drains level 0 when compaction is off: never stall writes on its file count.
    o.level0_slowdown_writes_trigger = 1 << 30;
    o.level0_stop_writes_trigger = 1 << 30;
  } else {
    o.level0_slowdown_writes_trigger = static_cast<int>(l0_soft_limit);
    o.level0_stop_writes_trigger = static_cast<int>(l0_hard_limit);
  }
  // A buffered write-ahead log: appends reach the file when the buffer fills, on flush,
  // or when the store's flusher thread writes it out (wal_flush_ms). Synced writes
  // bypass the buffer.
  o.manual_wal_flush = write_ahead_log_buffer > 0 && !wal_sync;
  o.writable_file_max_buffer_size = static_cast<size_t>(write_ahead_log_buffer > 0 ? write_ahead_log_buffer : 1 << 20);
  if (write_only) {
    o.memtable_factory = std::make_shared<SortedVectorMemTableFactory>(static_cast<size_t>(write_only_entries));
    o.allow_concurrent_memtable_write = false;
    // Two memtables of half the size, the one written and the one being flushed (writes
    // wait for the flush when both are full), hold at most memtable_size together; two of
    // memtable_size each would hold twice that while a flush lags.
    o.write_buffer_size = static_cast<size_t>(memtable_size / 2);
  } else {
    // Stores read while written (servers'): entries found by a hash of their key, sorted
    // at the flush; one writer at a time.
    o.memtable_factory = std::make_shared<HashedMemTableFactory>();
    o.allow_concurrent_memtable_write = false;
    if (checked_creates) {
      // 1.5% of the memtable: about 10 bits an entry when it holds run 1's small entries.
      o.memtable_prefix_bloom_size_ratio = 0.015;
      o.memtable_whole_key_filtering = true;
    }
  }
  // A write-only store's tables are not read while it is written: it keeps few of them
  // open (RocksDB's least, 20, of which its table cache holds 10), not a reader per table.
  o.max_open_files = write_only ? 20 : 2500;
  o.max_background_jobs = 2;
  // Tables are opened by the thread that opens the store, not by a pool of short-lived
  // threads, each of which would leave a malloc arena behind holding its table readers.
  o.max_file_opening_threads = 1;
  o.info_log_level = rocksdb::WARN_LEVEL;
  o.keep_log_file_num = 2;

  rocksdb::BlockBasedTableOptions t;
  t.block_size = static_cast<size_t>(block_size);
  // Table format 4: its Bloom filter builder holds 4 bytes per key until the table is
  // finished, the newer one 8 (0.4 MiB less at a run 1 server's flush of 100,000 names),
  // for about the same false-positive rate at 10 bits a key.
  t.format_version = 4;
  if (bloom_bits > 0) t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(static_cast<double>(bloom_bits)));
  if (write_only || scan_only) {
    t.cache_index_and_filter_blocks = true;
    t.block_cache = rocksdb::NewLRUCache(static_cast<size_t>(std::max(block_cache_size, kTableMetadataCacheBytes)));
  } else if (block_cache_size > 0) {
    t.block_cache = rocksdb::NewLRUCache(static_cast<size_t>(block_cache_size));
  } else {
    t.no_block_cache = true;
  }
  // No readahead beyond what an iterator asks for (Store::NewScanIterator).
  if (scan_only) t.max_auto_readahead_size = 0;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  return o;
}

rocksdb::WriteOptions StoreOptions::ToWriteOptions() const {
  rocksdb::WriteOptions w;
  w.disableWAL = disable_write_ahead_logging;
  w.sync = wal_sync && !disable_write_ahead_logging;
  return w;
}

}  // namespace deltameta
