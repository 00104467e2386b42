// The object-level operations the RADOS file system (rados_fs.h, which describes the data
// model) is built from: directory entries in omaps, file attributes in xattrs of a file's
// object 0, striped data reads through a cache of whole objects. Internal to the core.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <rados/librados.h>
#include <rocksdb/cache.h>
#include <rocksdb/io_status.h>
#include <rocksdb/slice.h>

namespace deltameta {

// "/a//b/" -> "/a/b"; "" and "/" -> "/".
std::string NormalizeRadosPath(const std::string& path);
// Splits a normalized path other than "/" into its directory and name.
void SplitRadosPath(const std::string& path, std::string* dir, std::string* name);
std::string DirObject(const std::string& dir);                   // "dir:<path>"
std::string ChunkObject(const std::string& id, uint64_t chunk);  // "<id>.<chunk in hex>"
// A new random file id (128 bits): no coordination between writers is needed.
std::string NewFileId();
// An IOStatus for librados error `r` (negative errno, or kNotTried: rados_give_up.h) while
// doing `what`.
rocksdb::IOStatus FromErrno(int r, const std::string& what);

// A directory entry: a subdirectory, or a file with its id.
struct RadosEntry {
  bool is_dir = false;
  std::string id;
};

// What object 0 of a file says about it.
struct FileAttrs {
  uint64_t size = 0;   // bytes made durable by Sync/Close
  uint64_t chunk = 0;  // stripe size
  uint64_t nlink = 1;  // directory entries naming the file
};

class RadosPool {
 public:
  // `io` stays owned by the caller. New files are striped over `chunk`-byte objects. Reads
  // of files keep up to `cache_bytes` of whole objects (0: no cache), the analogue of the
  // page cache that local files enjoy; file data never changes below a recorded size.
  RadosPool(rados_ioctx_t io, std::string name, uint64_t chunk, uint64_t cache_bytes);

  rados_ioctx_t io() const { return io_; }
  // Performs a write op or a read op on `oid`, or removes `oid`: 0 or a negative errno
  // (rados_give_up.h).
  int Operate(rados_write_op_t op, const std::string& oid) const;
  int OperateRead(rados_read_op_t op, const std::string& oid) const;
  int Remove(const std::string& oid) const;
  uint64_t chunk() const { return chunk_; }
  // "RADOS object <pool>/<object>", for messages.
  std::string Where(const std::string& object) const;

  // PathNotFound if `path` (normalized) has no entry.
  rocksdb::IOStatus Lookup(const std::string& path, RadosEntry* entry) const;
  // As Lookup, but a directory is an error.
  rocksdb::IOStatus LookupFile(const std::string& path, RadosEntry* entry) const;
  // Sets `name` in directory `dir` (which must exist, unless it is the root) and, if
  // `name_to_remove` is not empty, removes that name in the same atomic operation.
  rocksdb::IOStatus SetEntry(const std::string& dir, const std::string& name, const RadosEntry& entry,
                             const std::string& name_to_remove = "") const;
  rocksdb::IOStatus RemoveEntry(const std::string& dir, const std::string& name) const;
  // Up to `max` names after `after` in `dir`; *more if there are further ones.
  rocksdb::IOStatus ListPage(const std::string& dir, const std::string& after, size_t max,
                             std::vector<std::string>* names, bool* more) const;
  rocksdb::IOStatus List(const std::string& dir, std::vector<std::string>* names) const;
  // Creates the object of directory `path` and its entry in the parent, which must exist.
  rocksdb::IOStatus MakeDir(const std::string& path) const;
  // Creates object 0 of a new, empty file.
  rocksdb::IOStatus CreateFile(const std::string& id) const;
  rocksdb::IOStatus ReadAttrs(const std::string& id, FileAttrs* attrs) const;
  rocksdb::IOStatus SetAttr(const std::string& id, const char* name, uint64_t value) const;
  // Drops one name of file `id`; the data goes with the last one.
  rocksdb::IOStatus Unlink(const std::string& id) const;
  // Reads [offset, offset + n) of a file, clipped at its size, into scratch. Objects not in
  // the cache are fetched in parallel.
  rocksdb::IOStatus Read(const std::string& id, const FileAttrs& attrs, uint64_t offset, size_t n,
                         rocksdb::Slice* result, char* scratch) const;

 private:
  // Copies [in_chunk, in_chunk + len) of cached object `oid` into dst; false if not cached.
  bool FromCache(const std::string& oid, uint64_t in_chunk, size_t len, char* dst) const;

  rados_ioctx_t io_;
  std::string name_;
  uint64_t chunk_;
  std::shared_ptr<rocksdb::Cache> cache_;  // "<id>.<chunk>" -> std::string with the object's bytes
};

}  // namespace deltameta
