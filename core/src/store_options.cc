// Store settings from the environment and their RocksDB mapping: see store_options.h.
#include "deltameta/store_options.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/table.h>

extern char** environ;

namespace deltameta {
namespace {

constexpr char kPrefix[] = "DELTAFS_Db_";

struct Setting {
  const char* name;
  int64_t StoreOptions::*int_field;
  bool StoreOptions::*bool_field;
  int64_t min, max;
};

const std::vector<Setting>& Settings() {
  static const std::vector<Setting> settings = {
      {"memtable_size", &StoreOptions::memtable_size, nullptr, 64 << 10, int64_t{1} << 34},
      {"table_size", &StoreOptions::table_size, nullptr, 64 << 10, int64_t{1} << 34},
      {"block_size", &StoreOptions::block_size, nullptr, 512, 64 << 20},
      {"block_cache_size", &StoreOptions::block_cache_size, nullptr, 0, int64_t{1} << 40},
      {"bloom_bits", &StoreOptions::bloom_bits, nullptr, 0, 64},
      {"level_factor", &StoreOptions::level_factor, nullptr, 2, 100},
      {"l1_compaction_trigger", &StoreOptions::l1_compaction_trigger, nullptr, 1, 1000},
      {"l0_soft_limit", &StoreOptions::l0_soft_limit, nullptr, 1, 100000},
      {"l0_hard_limit", &StoreOptions::l0_hard_limit, nullptr, 1, 100000},
      {"write_ahead_log_buffer", &StoreOptions::write_ahead_log_buffer, nullptr, 0, 1 << 30},
      {"compression", nullptr, &StoreOptions::compression, 0, 1},
      {"disable_compaction", nullptr, &StoreOptions::disable_compaction, 0, 1},
      {"disable_write_ahead_logging", nullptr, &StoreOptions::disable_write_ahead_logging, 0, 1},
  };
  return settings;
}

}  // namespace

bool StoreOptions::CompressionAvailable() {
#ifdef DELTAMETA_WITH_SNAPPY
  return true;
#else
  return false;
#endif
}

bool StoreOptions::LoadFromEnvironment(std::string* error) {
  StoreOptions loaded = *this;  // applied only if every variable is valid
  for (char** e = environ; *e != nullptr; e++) {
    if (std::strncmp(*e, kPrefix, sizeof(kPrefix) - 1) != 0) continue;
    std::string entry(*e + sizeof(kPrefix) - 1);
    size_t eq = entry.find('=');
    std::string name = entry.substr(0, eq), text = entry.substr(eq + 1);
    const Setting* s = nullptr;
    for (const auto& c : Settings()) {
      if (name == c.name) s = &c;
    }
    if (s == nullptr) {
      *error = "unknown store setting " + std::string(kPrefix) + name +
               " in the environment (the settings are listed in core/README.md)";
      return false;
    }
    char* end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 10);
    const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || *end != '\0' || v < s->min || v > s->max) {
      *error = std::string(kPrefix) + name + " expects an integer in [" + std::to_string(s->min) + ", " +
               std::to_string(s->max) + "], got '" + text + "'";
      return false;
    }
    if (s->bool_field == &StoreOptions::compression && v != 0 && !CompressionAvailable()) {
      *error = std::string(kPrefix) + name + "=1 needs Snappy, which this build does not have "
               "(DELTAMETA_WITH_SNAPPY=OFF): set it to 0";
      return false;
    }
    if (s->int_field) loaded.*(s->int_field) = v;
    if (s->bool_field) loaded.*(s->bool_field) = v != 0;
  }
  if (loaded.l0_hard_limit < loaded.l0_soft_limit) {
    *error = "DELTAFS_Db_l0_hard_limit must be >= DELTAFS_Db_l0_soft_limit";
    return false;
  }
  *this = loaded;
  return true;
}

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
  // A buffered write-ahead log: appends reach the file when the buffer fills or on flush.
  o.manual_wal_flush = write_ahead_log_buffer > 0;
  o.writable_file_max_buffer_size = static_cast<size_t>(write_ahead_log_buffer > 0 ? write_ahead_log_buffer : 1 << 20);
  if (write_only) {
    o.memtable_factory.reset(new rocksdb::VectorRepFactory(static_cast<size_t>(write_only_entries)));
    o.allow_concurrent_memtable_write = false;
  }
  o.max_open_files = 2500;
  o.max_background_jobs = 2;
  o.info_log_level = rocksdb::WARN_LEVEL;
  o.keep_log_file_num = 2;

  rocksdb::BlockBasedTableOptions t;
  t.block_size = static_cast<size_t>(block_size);
  if (bloom_bits > 0) t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(static_cast<double>(bloom_bits)));
  if (block_cache_size > 0) {
    t.block_cache = rocksdb::NewLRUCache(static_cast<size_t>(block_cache_size));
  } else {
    t.no_block_cache = true;
  }
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  return o;
}

rocksdb::WriteOptions StoreOptions::ToWriteOptions() const {
  rocksdb::WriteOptions w;
  w.disableWAL = disable_write_ahead_logging;
  return w;
}

nlohmann::json StoreOptions::ToJson() const {
  nlohmann::json j;
  for (const auto& s : Settings()) {
    if (s.int_field) j[s.name] = this->*(s.int_field);
    if (s.bool_field) j[s.name] = this->*(s.bool_field);
  }
  return j;
}

std::string StoreOptions::HeaderText() const {
  char buf[1024];
  std::snprintf(buf, sizeof(buf),
                "Snappy:             %d\n"
                "Blk cache size:     %lld MB\n"
                "Blk size:           %lld KB\n"
                "Bloom bits:         %lld\n"
                "Memtable size:      %lld MB\n"
                "Tbl size:           %lld MB\n"
                "Lsm compaction off: %d\n"
                "Db level factor:    %lld\n"
                "L0 limits:          %lld (soft), %lld (hard)\n"
                "L1 trigger:         %lld\n"
                "Wal off:            %d\n"
                "Wal write size:     %lld KB\n",
                compression ? 1 : 0, static_cast<long long>(block_cache_size >> 20),
                static_cast<long long>(block_size >> 10), static_cast<long long>(bloom_bits),
                static_cast<long long>(memtable_size >> 20), static_cast<long long>(table_size >> 20),
                disable_compaction ? 1 : 0, static_cast<long long>(level_factor),
                static_cast<long long>(l0_soft_limit), static_cast<long long>(l0_hard_limit),
                static_cast<long long>(l1_compaction_trigger), disable_write_ahead_logging ? 1 : 0,
                static_cast<long long>(write_ahead_log_buffer >> 10));
  return buf;
}

}  // namespace deltameta
