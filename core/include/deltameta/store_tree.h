// What deltameta_storage may remove: only trees the project made and can recognise.
//  - a store or table directory: regular files only, each a RocksDB file (CURRENT, IDENTITY,
//    LOCK, LOG*, MANIFEST-*, OPTIONS-*, *.log, *.sst, *.blob, *.dbtmp) or the layout marker
//    DELTAMETA-LAYOUT, at least one of them;
//  - a store root: entries r0, r1, ... only, each a store or table directory or empty.
// Never `/`, the working directory or any directory above it, or the home directory, even
// if empty. Anything else is refused, naming the first entry that does not belong.
#pragma once

#include <cstdint>
#include <string>

#include "deltameta/status.h"
#include "deltameta/storage.h"

namespace deltameta {

struct StoreTree {
  uint64_t stores = 0;  // store or table directories
  uint64_t files = 0;
};

// OK if `where` exists and is such a tree (*tree counts it); NotFound if it does not
// exist; otherwise a failure naming why it is not one.
Status RecognizeStoreTree(const StorageLocation& where, StoreTree* tree);

// Removes `where` if it is a recognised tree (or does not exist: nothing to do, *tree
// zero); with dry_run only counts. A failure names why nothing was removed, or what
// failed midway.
Status RemoveStoreTree(const StorageLocation& where, bool dry_run, StoreTree* tree);

}  // namespace deltameta
