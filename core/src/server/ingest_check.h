// What a server accepts to ingest: bulk-insertion tables of its own partition, and nothing
// else. An ingest moves the files into the server's store (the source names disappear), so
// a request naming another store's table, a table of another partition, a damaged table
// or a file that is not a table must be refused before anything moves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "deltameta/status.h"
#include "deltameta/storage.h"

namespace deltameta {

// Accepts `table_uris` for ingestion into `store` (partition `partition` of `partitions`)
// only if each one: is in the store's file system; is a regular file named
// p<partition>-NNNNNN.sst, as the bulk-insertion client names its tables; lies in a directory that is not a store (no
// RocksDB CURRENT file, no layout marker); reads whole with every block checksum correct;
// and holds only keys of names of that partition. A failure names the first table that
// fails and why. Reads every table once.
Status CheckIngestTables(const StorageLocation& store, uint32_t partition, uint32_t partitions,
                         const std::vector<std::string>& table_uris);

}  // namespace deltameta
