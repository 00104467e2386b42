// A rocksdb::FileSystem over one RADOS pool, so that RocksDB stores and table files live in
// Ceph and every process on every node sees the same tree.
//
// Data model (all in the pool):
//   "dir:<path>"          one object per directory; its omap maps each child name to
//                         "d" (a directory) or "f:<file id>" (a file). Listing, lookup,
//                         rename and link are omap operations only.
//   "<file id>.<n>"       the file's data, striped over objects of `chunk_bytes` (n = 0, 1,
//                         ... in hex); object 0 always exists and carries the xattrs
//                         "size" (bytes made durable by Sync/Close), "chunk" (its stripe
//                         size) and "nlink" (directory entries naming it).
// A rename within one directory is atomic; across directories it sets the new entry before
// removing the old one. Links share the data; it is deleted with the last name. Writes are
// sent asynchronously on Flush and awaited on Sync/Close, which also record the size.
// Locks are RADOS exclusive locks on the lock file's object 0. Reads keep whole objects in
// an LRU cache of `cache_bytes` (0: none), as the page cache does for local files.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <rados/librados.h>
#include <rocksdb/file_system.h>

namespace deltameta {

constexpr uint64_t kDefaultRadosChunkBytes = 4 << 20;

constexpr uint64_t kDefaultRadosCacheBytes = 256 << 20;

// `io` must stay open for the life of the file system; `pool` is used in messages.
std::shared_ptr<rocksdb::FileSystem> NewRadosFileSystem(rados_ioctx_t io, const std::string& pool, uint64_t chunk_bytes,
                                                        uint64_t cache_bytes);

}  // namespace deltameta
