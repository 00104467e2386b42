// Checks of tables offered for ingestion: see ingest_check.h.
#include "server/ingest_check.h"

#include <sys/stat.h>

#include <memory>

#include <rocksdb/sst_file_reader.h>

#include "deltameta/key.h"
#include "deltameta/layout.h"
#include "deltameta/partition.h"
#include "util/name_scanner.h"

namespace deltameta {
namespace {

// The directory part of a path inside a location's file system.
std::string ParentOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Why `table` (in the store's file system) cannot be ingested into `partition`, or "".
std::string Refusal(const StorageLocation& table, uint32_t partition, uint32_t partitions) {
  const std::string& path = table.path();
  const std::string name = path.substr(path.find_last_of('/') + 1);
  NameScanner bulk_table(name);
  std::string_view named;  // the partition its name gives
  if (!(bulk_table.Literal("p") && bulk_table.Digits(1, &named) && bulk_table.Literal("-") && bulk_table.Digits(6) &&
        bulk_table.RestIs({".sst"}))) {
    return "not a bulk-insertion table (p<partition>-NNNNNN.sst)";
  }
  if (named != std::to_string(partition))
    return "a table of partition " + std::string(named) + ", not of this server's";
  if (!table.is_rados()) {
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) return "no such file";
    if (!S_ISREG(st.st_mode)) return "not a regular file";
  }
  rocksdb::Env* env = table.env();
  const std::string dir = ParentOf(path);
  if (env->FileExists(dir + "/CURRENT").ok() || env->FileExists(dir + "/" + kLayoutFileName).ok()) {
    return "it lies in a store, not in a bulk-insertion table directory";
  }
  rocksdb::Options o;  // a table says how it is built; the reader needs only its file system
  o.env = env;
  rocksdb::SstFileReader reader(o);
  rocksdb::Status s = reader.Open(path);
  if (!s.ok()) return s.ToString();
  rocksdb::ReadOptions ro;  // verifies the checksum of every block it reads: one pass over the table
  ro.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(reader.NewIterator(ro));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    uint64_t dir_id;
    std::string_view file_name;
    const rocksdb::Slice key = it->key();
    if (!DecodeKey(std::string_view(key.data(), key.size()), &dir_id, &file_name)) return "it holds a malformed key";
    if (PartitionOf(file_name, partitions) != partition) {
      return "it holds '" + std::string(file_name) + "' of partition " +
             std::to_string(PartitionOf(file_name, partitions));
    }
  }
  return it->status().ok() ? "" : it->status().ToString();
}

}  // namespace

Status CheckIngestTables(const StorageLocation& store, uint32_t partition, uint32_t partitions,
                         const std::vector<std::string>& table_uris) {
  for (const std::string& uri : table_uris) {
    StorageLocation table;
    const Status resolved = StorageLocation::Resolve(uri, &table);
    if (!resolved.ok()) return resolved;
    std::string why = table.env() != store.env() ? "it is not in the file system of the store " + store.uri() +
                                                       ": write the tables into the same pool or directory tree"
                                                 : Refusal(table, partition, partitions);
    if (!why.empty()) return Status::InvalidArgument("refused to ingest " + uri + ": " + why);
  }
  return Status::OK();
}

}  // namespace deltameta
