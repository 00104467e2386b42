// The layout marker of a metadata store: a small text file beside the RocksDB files that
// says which part of the namespace the store holds, so that a store is never opened by
// the wrong number of servers or fed to the compactor by mistake.
#pragma once

#include <cstdint>
#include <string>

#include "deltameta/status.h"
#include "deltameta/storage.h"

namespace deltameta {

struct StoreLayout {
  enum class Kind {
    kPartition,  // holds the names with PartitionOf(name, count) == index (servers, compactor output)
    kOrigin,     // DeltaFS write-phase store of client rank `index` of `count` (any partition)
  };
  Kind kind = Kind::kPartition;
  uint32_t index = 0;
  uint32_t count = 1;

  std::string Describe() const;  // e.g. "partition 2 of 4"
};

constexpr char kLayoutFileName[] = "DELTAMETA-LAYOUT";

// Writes (replacing) the marker in store directory `dir`.
Status WriteLayout(const StorageLocation& dir, const StoreLayout& layout);
// Reads the marker; NotFound if it is missing, Corruption if it is malformed.
Status ReadLayout(const StorageLocation& dir, StoreLayout* layout);

// The one check of a store's marker against the layout its reader expects, which
// Store::Open makes on every read-only open: OK if `found` (the marker of the store at
// `uri`) is `expected`, else a failure saying what the store holds instead. The
// wording follows the expected kind's readers: partition stores are served by server
// ranks, one each; origin stores are read by the DeltaFS read phase and the compactor.
Status CheckLayout(const std::string& uri, const StoreLayout& found, const StoreLayout& expected);

// Where the jobs keep rank `rank`'s store under a store root: <root>/r<rank>.
std::string RankStore(const std::string& root, uint32_t rank);
StorageLocation RankStore(const StorageLocation& root, uint32_t rank);

}  // namespace deltameta
