// Store settings from the environment, as JSON and as the tools' header text (their
// RocksDB mapping is in store_options_rocksdb.cc): see store_options.h.
#include "deltameta/store_options.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <nlohmann/json.hpp>

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

Status StoreOptions::LoadFromEnvironment() {
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
      return Status::InvalidArgument("unknown store setting " + std::string(kPrefix) + name +
                                     " in the environment (the settings are listed in core/README.md)");
    }
    char* end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 10);
    const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || *end != '\0' || v < s->min || v > s->max) {
      return Status::InvalidArgument(std::string(kPrefix) + name + " expects an integer in [" + std::to_string(s->min) +
                                     ", " + std::to_string(s->max) + "], got '" + text + "'");
    }
    if (s->bool_field == &StoreOptions::compression && v != 0 && !CompressionAvailable()) {
      return Status::InvalidArgument(std::string(kPrefix) + name +
                                     "=1 needs Snappy, which this build does not have "
                                     "(DELTAMETA_WITH_SNAPPY=OFF): set it to 0");
    }
    if (s->int_field) loaded.*(s->int_field) = v;
    if (s->bool_field) loaded.*(s->bool_field) = v != 0;
  }
  if (loaded.l0_hard_limit < loaded.l0_soft_limit) {
    return Status::InvalidArgument("DELTAFS_Db_l0_hard_limit must be >= DELTAFS_Db_l0_soft_limit");
  }
  *this = loaded;
  return Status::OK();
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
                disable_compaction ? 1 : 0, static_cast<long long>(level_factor), static_cast<long long>(l0_soft_limit),
                static_cast<long long>(l0_hard_limit), static_cast<long long>(l1_compaction_trigger),
                disable_write_ahead_logging ? 1 : 0, static_cast<long long>(write_ahead_log_buffer >> 10));
  return buf;
}

}  // namespace deltameta
