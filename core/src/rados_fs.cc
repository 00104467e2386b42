// RocksDB file system over a RADOS pool: see rados_fs.h for the data model.
#include "deltameta/rados_fs.h"

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <random>
#include <vector>

namespace deltameta {
namespace {

using rocksdb::FileOptions;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

constexpr uint64_t kIssueBytes = 1 << 20;         // buffered appends are sent in pieces of this
constexpr uint64_t kMaxInflightBytes = 32 << 20;  // sent but not yet acknowledged, per file
constexpr size_t kListPage = 1000;

// ---- paths and names ----

// "/a//b/" -> "/a/b"; "" and "/" -> "/".
std::string Normalize(const std::string& path) {
  std::string out;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') i++;
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    if (j > i) out += "/" + path.substr(i, j - i);
    i = j;
  }
  return out.empty() ? "/" : out;
}

// Splits a normalized path other than "/" into its directory and name.
void SplitPath(const std::string& path, std::string* dir, std::string* name) {
  const size_t slash = path.rfind('/');
  *dir = slash == 0 ? "/" : path.substr(0, slash);
  *name = path.substr(slash + 1);
}

std::string DirObject(const std::string& dir) { return "dir:" + dir; }

std::string ChunkObject(const std::string& id, uint64_t chunk) {
  char suffix[24];
  std::snprintf(suffix, sizeof(suffix), ".%llx", static_cast<unsigned long long>(chunk));
  return id + suffix;
}

std::string NewFileId() {
  static thread_local std::mt19937_64 rng(std::random_device{}() ^
                                          (static_cast<uint64_t>(std::time(nullptr)) << 20));
  char id[40];
  std::snprintf(id, sizeof(id), "f%016llx%016llx", static_cast<unsigned long long>(rng()),
                static_cast<unsigned long long>(rng()));
  return id;
}

IOStatus FromErrno(int r, const std::string& what) {
  const std::string msg = what + ": " + std::strerror(-r);
  if (r == -ENOENT) return IOStatus::PathNotFound(msg);
  if (r == -ENOSPC || r == -EDQUOT) return IOStatus::NoSpace(msg + " (the pool is full or over quota)");
  if (r == -ETIMEDOUT)
    return IOStatus::IOError(msg + " (no answer from Ceph in time: is the cluster up and the pool not full?)");
  return IOStatus::IOError(msg);
}

// A directory entry: a subdirectory, or a file with its id.
struct Entry {
  bool is_dir = false;
  std::string id;
};

std::string EncodeEntry(const Entry& e) { return e.is_dir ? "d" : "f:" + e.id; }

bool DecodeEntry(const char* v, size_t n, Entry* e) {
  if (n == 1 && v[0] == 'd') {
    *e = Entry{true, ""};
    return true;
  }
  if (n > 2 && v[0] == 'f' && v[1] == ':') {
    *e = Entry{false, std::string(v + 2, n - 2)};
    return true;
  }
  return false;
}

// Owns a librados write or read op.
struct WriteOp {
  rados_write_op_t op = rados_create_write_op();
  ~WriteOp() { rados_release_write_op(op); }
};
struct ReadOp {
  rados_read_op_t op = rados_create_read_op();
  ~ReadOp() { rados_release_read_op(op); }
};

// What object 0 of a file says about it.
struct FileAttrs {
  uint64_t size = 0;
  uint64_t chunk = kDefaultRadosChunkBytes;
  uint64_t nlink = 1;
};

// The pool plus the operations every file and directory call is built from.
class Pool {
 public:
  Pool(rados_ioctx_t io, std::string name, uint64_t chunk) : io_(io), name_(std::move(name)), chunk_(chunk) {}

  rados_ioctx_t io() const { return io_; }
  uint64_t chunk() const { return chunk_; }
  std::string Where(const std::string& object) const { return "RADOS object " + name_ + "/" + object; }

  IOStatus Lookup(const std::string& path, Entry* entry) const {
    if (path == "/") {
      *entry = Entry{true, ""};
      return IOStatus::OK();
    }
    std::string dir, name;
    SplitPath(path, &dir, &name);
    ReadOp rop;
    const char* keys[] = {name.c_str()};
    rados_omap_iter_t it = nullptr;
    int prval = 0;
    rados_read_op_omap_get_vals_by_keys(rop.op, keys, 1, &it, &prval);
    const int r = rados_read_op_operate(rop.op, io_, DirObject(dir).c_str(), 0);
    if (r < 0 || prval < 0) {
      if (it) rados_omap_get_end(it);
      const int e = r < 0 ? r : prval;
      return e == -ENOENT ? IOStatus::PathNotFound(path + ": no such file or directory")
                          : FromErrno(e, "looking up " + path + " in " + Where(DirObject(dir)));
    }
    char *key = nullptr, *val = nullptr;
    size_t len = 0;
    bool found = rados_omap_get_next(it, &key, &val, &len) == 0 && key != nullptr;
    bool valid = found && DecodeEntry(val, len, entry);
    rados_omap_get_end(it);
    if (!found) return IOStatus::PathNotFound(path + ": no such file or directory");
    if (!valid) return IOStatus::Corruption("malformed directory entry for " + path + " in " + Where(DirObject(dir)));
    return IOStatus::OK();
  }

  IOStatus LookupFile(const std::string& path, Entry* entry) const {
    IOStatus s = Lookup(path, entry);
    if (s.ok() && entry->is_dir) return IOStatus::IOError(path + " is a directory");
    return s;
  }

  // Sets (or, with an empty `name_to_remove`, only sets) entries of one directory in one
  // atomic operation. The directory must exist, except the root.
  IOStatus SetEntry(const std::string& dir, const std::string& name, const Entry& entry,
                    const std::string& name_to_remove = "") const {
    WriteOp wop;
    if (dir != "/") rados_write_op_assert_exists(wop.op);
    const std::string value = EncodeEntry(entry);
    const char* keys[] = {name.c_str()};
    const char* vals[] = {value.data()};
    const size_t lens[] = {value.size()};
    rados_write_op_omap_set(wop.op, keys, vals, lens, 1);
    if (!name_to_remove.empty()) {
      const char* rm[] = {name_to_remove.c_str()};
      rados_write_op_omap_rm_keys(wop.op, rm, 1);
    }
    const int r = rados_write_op_operate(wop.op, io_, DirObject(dir).c_str(), nullptr, 0);
    if (r == -ENOENT) return IOStatus::PathNotFound(dir + ": no such directory");
    return r < 0 ? FromErrno(r, "updating " + Where(DirObject(dir))) : IOStatus::OK();
  }

  IOStatus RemoveEntry(const std::string& dir, const std::string& name) const {
    WriteOp wop;
    const char* keys[] = {name.c_str()};
    rados_write_op_omap_rm_keys(wop.op, keys, 1);
    const int r = rados_write_op_operate(wop.op, io_, DirObject(dir).c_str(), nullptr, 0);
    return r < 0 ? FromErrno(r, "updating " + Where(DirObject(dir))) : IOStatus::OK();
  }

  // Up to `max` names after `after` in directory `dir`; *more if there are further ones.
  IOStatus ListPage(const std::string& dir, const std::string& after, size_t max, std::vector<std::string>* names,
                    bool* more) const {
    ReadOp rop;
    rados_omap_iter_t it = nullptr;
    unsigned char pmore = 0;
    int prval = 0;
    rados_read_op_omap_get_keys2(rop.op, after.c_str(), max, &it, &pmore, &prval);
    const int r = rados_read_op_operate(rop.op, io_, DirObject(dir).c_str(), 0);
    if (r < 0 || prval < 0) {
      if (it) rados_omap_get_end(it);
      const int e = r < 0 ? r : prval;
      if (e == -ENOENT && dir == "/") {
        *more = false;
        return IOStatus::OK();
      }
      return e == -ENOENT ? IOStatus::PathNotFound(dir + ": no such directory")
                          : FromErrno(e, "listing " + Where(DirObject(dir)));
    }
    char* key = nullptr;
    size_t key_len = 0;
    while (rados_omap_get_next2(it, &key, nullptr, &key_len, nullptr) == 0 && key != nullptr) {
      names->emplace_back(key, key_len);
    }
    rados_omap_get_end(it);
    *more = pmore != 0;
    return IOStatus::OK();
  }

  IOStatus List(const std::string& dir, std::vector<std::string>* names) const {
    names->clear();
    bool more = true;
    while (more) {
      const std::string after = names->empty() ? "" : names->back();
      IOStatus s = ListPage(dir, after, kListPage, names, &more);
      if (!s.ok()) return s;
    }
    return IOStatus::OK();
  }

  IOStatus ReadAttrs(const std::string& id, FileAttrs* attrs) const {
    const std::string oid = ChunkObject(id, 0);
    ReadOp rop;
    rados_xattrs_iter_t it = nullptr;
    int prval = 0;
    rados_read_op_getxattrs(rop.op, &it, &prval);
    const int r = rados_read_op_operate(rop.op, io_, oid.c_str(), 0);
    if (r < 0 || prval < 0) {
      if (it) rados_getxattrs_end(it);
      const int e = r < 0 ? r : prval;
      if (e == -ENOENT) return IOStatus::Corruption("missing " + Where(oid) + ": the file's data is gone");
      return FromErrno(e, "reading " + Where(oid));
    }
    const char* name = nullptr;
    const char* val = nullptr;
    size_t len = 0;
    bool has_chunk = false;
    while (rados_getxattrs_next(it, &name, &val, &len) == 0 && name != nullptr) {
      const uint64_t v = std::strtoull(std::string(val, len).c_str(), nullptr, 10);
      if (std::strcmp(name, "size") == 0) attrs->size = v;
      if (std::strcmp(name, "nlink") == 0) attrs->nlink = v;
      if (std::strcmp(name, "chunk") == 0) {
        attrs->chunk = v;
        has_chunk = true;
      }
    }
    rados_getxattrs_end(it);
    if (!has_chunk || attrs->chunk == 0) return IOStatus::Corruption(Where(oid) + " has no valid 'chunk' attribute");
    return IOStatus::OK();
  }

  IOStatus SetAttr(const std::string& id, const char* name, uint64_t value) const {
    const std::string oid = ChunkObject(id, 0);
    const std::string v = std::to_string(value);
    const int r = rados_setxattr(io_, oid.c_str(), name, v.data(), v.size());
    return r < 0 ? FromErrno(r, "updating " + Where(oid)) : IOStatus::OK();
  }

  // Creates the data object 0 of a new, empty file.
  IOStatus CreateFile(const std::string& id) const {
    WriteOp wop;
    rados_write_op_create(wop.op, LIBRADOS_CREATE_EXCLUSIVE, nullptr);
    const std::string chunk = std::to_string(chunk_);
    rados_write_op_setxattr(wop.op, "size", "0", 1);
    rados_write_op_setxattr(wop.op, "nlink", "1", 1);
    rados_write_op_setxattr(wop.op, "chunk", chunk.data(), chunk.size());
    const std::string oid = ChunkObject(id, 0);
    const int r = rados_write_op_operate(wop.op, io_, oid.c_str(), nullptr, 0);
    return r < 0 ? FromErrno(r, "creating " + Where(oid)) : IOStatus::OK();
  }

  // Drops one name of file `id`; the data goes with the last one.
  IOStatus Unlink(const std::string& id) const {
    FileAttrs attrs;
    IOStatus s = ReadAttrs(id, &attrs);
    if (!s.ok()) return s;
    if (attrs.nlink > 1) return SetAttr(id, "nlink", attrs.nlink - 1);
    const uint64_t chunks = std::max<uint64_t>(1, (attrs.size + attrs.chunk - 1) / attrs.chunk);
    // Unsynced appends may have reached objects past the recorded size.
    for (uint64_t n = 1;; n++) {
      const int r = rados_remove(io_, ChunkObject(id, n).c_str());
      if (r == -ENOENT && n >= chunks) break;
      if (r < 0 && r != -ENOENT) return FromErrno(r, "removing " + Where(ChunkObject(id, n)));
    }
    const int r = rados_remove(io_, ChunkObject(id, 0).c_str());
    return r < 0 && r != -ENOENT ? FromErrno(r, "removing " + Where(ChunkObject(id, 0))) : IOStatus::OK();
  }

  // Reads [offset, offset + n) of a file of the given attributes into scratch; the pieces
  // in different objects are read in parallel.
  IOStatus Read(const std::string& id, const FileAttrs& attrs, uint64_t offset, size_t n, Slice* result,
                char* scratch) const {
    if (offset >= attrs.size) {
      *result = Slice(scratch, 0);
      return IOStatus::OK();
    }
    n = static_cast<size_t>(std::min<uint64_t>(n, attrs.size - offset));
    struct Piece {
      rados_completion_t done = nullptr;
      std::string oid;
      size_t len = 0;
    };
    std::vector<Piece> pieces;
    uint64_t pos = offset;
    while (pos < offset + n) {
      const uint64_t in_chunk = pos % attrs.chunk;
      Piece p;
      p.oid = ChunkObject(id, pos / attrs.chunk);
      p.len = static_cast<size_t>(std::min<uint64_t>(attrs.chunk - in_chunk, offset + n - pos));
      pieces.push_back(std::move(p));
      pos += pieces.back().len;
    }
    if (pieces.size() == 1) {
      const int r = rados_read(io_, pieces[0].oid.c_str(), scratch, n, offset % attrs.chunk);
      return Finish(r, pieces[0].oid, n, result, scratch);
    }
    int error = 0;
    std::string failed;
    size_t done = 0;
    pos = offset;
    for (Piece& p : pieces) {
      rados_aio_create_completion2(nullptr, nullptr, &p.done);
      const int r = rados_aio_read(io_, p.oid.c_str(), p.done, scratch + (pos - offset), p.len, pos % attrs.chunk);
      if (r < 0 && error == 0) error = r, failed = p.oid;
      pos += p.len;
    }
    for (Piece& p : pieces) {
      rados_aio_wait_for_complete(p.done);
      const int r = rados_aio_get_return_value(p.done);
      rados_aio_release(p.done);
      if (r < 0 && error == 0) error = r, failed = p.oid;
      if (r >= 0 && static_cast<size_t>(r) != p.len && error == 0) error = -EIO, failed = p.oid;
      if (r >= 0) done += static_cast<size_t>(r);
    }
    return Finish(error < 0 ? error : static_cast<int>(done), failed, n, result, scratch);
  }

 private:
  IOStatus Finish(int r, const std::string& oid, size_t n, Slice* result, char* scratch) const {
    if (r == -ENOENT) return IOStatus::Corruption("missing " + Where(oid) + ": the file's data is gone");
    if (r < 0) return FromErrno(r, "reading " + Where(oid));
    if (static_cast<size_t>(r) != n) return IOStatus::Corruption(Where(oid) + " is shorter than the file's recorded size");
    *result = Slice(scratch, n);
    return IOStatus::OK();
  }

  rados_ioctx_t io_;
  std::string name_;
  uint64_t chunk_;
};

// ---- files ----

class RadosRandomAccessFile : public rocksdb::FSRandomAccessFile {
 public:
  RadosRandomAccessFile(const Pool* pool, std::string id, FileAttrs attrs)
      : pool_(pool), id_(std::move(id)), attrs_(attrs) {}
  IOStatus Read(uint64_t offset, size_t n, const IOOptions&, Slice* result, char* scratch,
                IODebugContext*) const override {
    return pool_->Read(id_, attrs_, offset, n, result, scratch);
  }

 private:
  const Pool* pool_;
  std::string id_;
  FileAttrs attrs_;
};

class RadosSequentialFile : public rocksdb::FSSequentialFile {
 public:
  RadosSequentialFile(const Pool* pool, std::string id, FileAttrs attrs)
      : pool_(pool), id_(std::move(id)), attrs_(attrs) {}
  IOStatus Read(size_t n, const IOOptions&, Slice* result, char* scratch, IODebugContext*) override {
    IOStatus s = pool_->Read(id_, attrs_, offset_, n, result, scratch);
    if (s.ok()) offset_ += result->size();
    return s;
  }
  IOStatus Skip(uint64_t n) override {
    offset_ = std::min(attrs_.size, offset_ + n);
    return IOStatus::OK();
  }

 private:
  const Pool* pool_;
  std::string id_;
  FileAttrs attrs_;
  uint64_t offset_ = 0;
};

class RadosWritableFile : public rocksdb::FSWritableFile {
 public:
  RadosWritableFile(const Pool* pool, std::string id, uint64_t chunk, uint64_t size)
      : pool_(pool), id_(std::move(id)), chunk_(chunk), size_(size), sent_(size), synced_(size) {}
  ~RadosWritableFile() override { Close(IOOptions(), nullptr); }

  IOStatus Append(const Slice& data, const IOOptions& o, IODebugContext* dbg) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return IOStatus::IOError("append to a closed file");
    buffer_.append(data.data(), data.size());
    size_ += data.size();
    return buffer_.size() >= kIssueBytes ? Send() : error_;
  }
  IOStatus Append(const Slice& data, const IOOptions& o, const rocksdb::DataVerificationInfo&,
                  IODebugContext* dbg) override {
    return Append(data, o, dbg);
  }
  IOStatus Truncate(uint64_t size, const IOOptions&, IODebugContext*) override {
    std::lock_guard<std::mutex> lock(mu_);
    return size == size_ ? IOStatus::OK() : IOStatus::NotSupported("truncating a RADOS file");
  }
  IOStatus Flush(const IOOptions&, IODebugContext*) override {
    std::lock_guard<std::mutex> lock(mu_);
    return Send();
  }
  IOStatus Sync(const IOOptions&, IODebugContext*) override {
    std::lock_guard<std::mutex> lock(mu_);
    return SyncAll();
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* dbg) override { return Sync(o, dbg); }
  IOStatus Close(const IOOptions&, IODebugContext*) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return error_;
    IOStatus s = SyncAll();
    closed_ = true;
    return s;
  }
  uint64_t GetFileSize(const IOOptions&, IODebugContext*) override {
    std::lock_guard<std::mutex> lock(mu_);
    return size_;
  }
  // RocksDB syncs the WAL from other threads than the writer's (one uncontended lock per
  // buffered append, not per operation).
  bool IsSyncThreadSafe() const override { return true; }

 private:
  struct InFlight {
    rados_completion_t done;
    std::shared_ptr<std::string> data;
    std::string oid;
    size_t len;
  };

  // Sends the buffered bytes, split at object boundaries, without waiting.
  IOStatus Send() {
    if (!error_.ok() || buffer_.empty()) return error_;
    auto data = std::make_shared<std::string>();
    data->swap(buffer_);
    size_t pos = 0;
    while (pos < data->size()) {
      const uint64_t in_chunk = sent_ % chunk_;
      const size_t len = static_cast<size_t>(std::min<uint64_t>(chunk_ - in_chunk, data->size() - pos));
      InFlight f{nullptr, data, ChunkObject(id_, sent_ / chunk_), len};
      rados_aio_create_completion2(nullptr, nullptr, &f.done);
      const int r = rados_aio_write(pool_->io(), f.oid.c_str(), f.done, data->data() + pos, len, in_chunk);
      if (r < 0) {
        rados_aio_release(f.done);
        return error_ = FromErrno(r, "writing " + pool_->Where(f.oid));
      }
      inflight_bytes_ += len;
      inflight_.push_back(std::move(f));
      sent_ += len;
      pos += len;
    }
    while (inflight_bytes_ > kMaxInflightBytes && error_.ok()) WaitOldest();
    return error_;
  }

  void WaitOldest() {
    InFlight f = std::move(inflight_.front());
    inflight_.pop_front();
    rados_aio_wait_for_complete(f.done);
    const int r = rados_aio_get_return_value(f.done);
    rados_aio_release(f.done);
    inflight_bytes_ -= f.len;
    if (r < 0 && error_.ok()) error_ = FromErrno(r, "writing " + pool_->Where(f.oid));
  }

  // Sends and awaits everything, then records the size.
  IOStatus SyncAll() {
    Send();
    while (!inflight_.empty()) WaitOldest();
    if (error_.ok() && synced_ != size_) {
      error_ = pool_->SetAttr(id_, "size", size_);
      if (error_.ok()) synced_ = size_;
    }
    return error_;
  }

  std::mutex mu_;
  const Pool* pool_;
  std::string id_;
  uint64_t chunk_;
  uint64_t size_;    // bytes appended
  uint64_t sent_;    // bytes handed to RADOS
  uint64_t synced_;  // size recorded in object 0
  std::string buffer_;
  std::deque<InFlight> inflight_;
  uint64_t inflight_bytes_ = 0;
  IOStatus error_;
  bool closed_ = false;
};

// Directory changes are synchronous omap updates, so there is nothing to sync.
class RadosDirectory : public rocksdb::FSDirectory {
 public:
  IOStatus Fsync(const IOOptions&, IODebugContext*) override { return IOStatus::OK(); }
};

// RocksDB's info log, appended to a file in the pool.
class RadosLogger : public rocksdb::Logger {
 public:
  explicit RadosLogger(std::unique_ptr<rocksdb::FSWritableFile> file) : file_(std::move(file)) {}
  ~RadosLogger() override { CloseImpl(); }
  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    char line[1024];
    const std::time_t now = std::time(nullptr);
    struct tm tm;
    localtime_r(&now, &tm);
    size_t n = std::strftime(line, sizeof(line), "%Y/%m/%d-%H:%M:%S ", &tm);
    const int m = std::vsnprintf(line + n, sizeof(line) - n - 1, format, ap);
    n = std::min(sizeof(line) - 2, n + static_cast<size_t>(std::max(m, 0)));
    line[n++] = '\n';
    std::lock_guard<std::mutex> lock(mu_);
    if (file_) file_->Append(Slice(line, n), IOOptions(), nullptr);
  }
  void Flush() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (file_) file_->Flush(IOOptions(), nullptr);
  }

 protected:
  rocksdb::Status CloseImpl() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!file_) return rocksdb::Status::OK();
    IOStatus s = file_->Close(IOOptions(), nullptr);
    file_.reset();
    return s;
  }

 private:
  std::mutex mu_;
  std::unique_ptr<rocksdb::FSWritableFile> file_;
};

class RadosFileLock : public rocksdb::FileLock {
 public:
  RadosFileLock(std::string oid, std::string cookie) : oid(std::move(oid)), cookie(std::move(cookie)) {}
  std::string oid, cookie;
};

constexpr char kLockName[] = "deltameta.lock";

// ---- the file system ----

class RadosFileSystem : public rocksdb::FileSystem {
 public:
  RadosFileSystem(rados_ioctx_t io, const std::string& pool, uint64_t chunk) : pool_(io, pool, chunk) {}

  const char* Name() const override { return "DeltametaRadosFileSystem"; }

  IOStatus NewSequentialFile(const std::string& fname, const FileOptions&,
                             std::unique_ptr<rocksdb::FSSequentialFile>* result, IODebugContext*) override {
    Entry e;
    FileAttrs attrs;
    IOStatus s = OpenForRead(fname, &e, &attrs);
    if (s.ok()) result->reset(new RadosSequentialFile(&pool_, e.id, attrs));
    return s;
  }

  IOStatus NewRandomAccessFile(const std::string& fname, const FileOptions&,
                               std::unique_ptr<rocksdb::FSRandomAccessFile>* result, IODebugContext*) override {
    Entry e;
    FileAttrs attrs;
    IOStatus s = OpenForRead(fname, &e, &attrs);
    if (s.ok()) result->reset(new RadosRandomAccessFile(&pool_, e.id, attrs));
    return s;
  }

  IOStatus NewWritableFile(const std::string& fname, const FileOptions&,
                           std::unique_ptr<rocksdb::FSWritableFile>* result, IODebugContext*) override {
    const std::string path = Normalize(fname);
    if (path == "/") return IOStatus::IOError("/ is a directory");
    std::string dir, name;
    SplitPath(path, &dir, &name);
    Entry old;
    IOStatus found = pool_.Lookup(path, &old);
    if (found.ok() && old.is_dir) return IOStatus::IOError(path + " is a directory");
    if (!found.ok() && !found.IsPathNotFound()) return found;
    const std::string id = NewFileId();
    IOStatus s = pool_.CreateFile(id);
    if (s.ok()) s = pool_.SetEntry(dir, name, Entry{false, id});
    if (!s.ok()) {
      pool_.Unlink(id);
      return s;
    }
    if (found.ok()) s = pool_.Unlink(old.id);
    if (s.ok()) result->reset(new RadosWritableFile(&pool_, id, pool_.chunk(), 0));
    return s;
  }

  IOStatus ReopenWritableFile(const std::string& fname, const FileOptions& options,
                              std::unique_ptr<rocksdb::FSWritableFile>* result, IODebugContext* dbg) override {
    Entry e;
    FileAttrs attrs;
    IOStatus s = OpenForRead(fname, &e, &attrs);
    if (s.IsPathNotFound()) return NewWritableFile(fname, options, result, dbg);
    if (s.ok()) result->reset(new RadosWritableFile(&pool_, e.id, attrs.chunk, attrs.size));
    return s;
  }

  IOStatus NewDirectory(const std::string& name, const IOOptions&, std::unique_ptr<rocksdb::FSDirectory>* result,
                        IODebugContext*) override {
    Entry e;
    IOStatus s = pool_.Lookup(Normalize(name), &e);
    if (s.ok() && !e.is_dir) return IOStatus::IOError(name + " is not a directory");
    if (s.ok()) result->reset(new RadosDirectory());
    return s;
  }

  IOStatus FileExists(const std::string& fname, const IOOptions&, IODebugContext*) override {
    Entry e;
    IOStatus s = pool_.Lookup(Normalize(fname), &e);
    return s.IsPathNotFound() ? IOStatus::NotFound(fname) : s;
  }

  IOStatus GetChildren(const std::string& dir, const IOOptions&, std::vector<std::string>* result,
                       IODebugContext*) override {
    const std::string path = Normalize(dir);
    Entry e;
    IOStatus s = pool_.Lookup(path, &e);
    if (s.ok() && !e.is_dir) return IOStatus::IOError(dir + " is not a directory");
    return s.ok() ? pool_.List(path, result) : s;
  }

  IOStatus DeleteFile(const std::string& fname, const IOOptions&, IODebugContext*) override {
    const std::string path = Normalize(fname);
    Entry e;
    IOStatus s = pool_.LookupFile(path, &e);
    if (!s.ok()) return s;
    std::string dir, name;
    SplitPath(path, &dir, &name);
    s = pool_.RemoveEntry(dir, name);
    return s.ok() ? pool_.Unlink(e.id) : s;
  }

  IOStatus CreateDir(const std::string& dirname, const IOOptions&, IODebugContext*) override {
    const std::string path = Normalize(dirname);
    Entry e;
    IOStatus s = pool_.Lookup(path, &e);
    if (s.ok()) return IOStatus::IOError(dirname + " already exists");
    return s.IsPathNotFound() ? MakeDir(path) : s;
  }

  IOStatus CreateDirIfMissing(const std::string& dirname, const IOOptions&, IODebugContext*) override {
    const std::string path = Normalize(dirname);
    Entry e;
    IOStatus s = pool_.Lookup(path, &e);
    if (s.ok()) return e.is_dir ? IOStatus::OK() : IOStatus::IOError(dirname + " exists and is not a directory");
    return s.IsPathNotFound() ? MakeDir(path) : s;
  }

  IOStatus DeleteDir(const std::string& dirname, const IOOptions&, IODebugContext*) override {
    const std::string path = Normalize(dirname);
    if (path == "/") return IOStatus::IOError("the root directory cannot be deleted");
    Entry e;
    IOStatus s = pool_.Lookup(path, &e);
    if (!s.ok()) return s;
    if (!e.is_dir) return IOStatus::IOError(dirname + " is not a directory");
    std::vector<std::string> names;
    bool more = false;
    s = pool_.ListPage(path, "", 1, &names, &more);
    if (!s.ok()) return s;
    if (!names.empty()) return IOStatus::IOError(dirname + " is not empty");
    std::string parent, name;
    SplitPath(path, &parent, &name);
    s = pool_.RemoveEntry(parent, name);
    if (!s.ok()) return s;
    const int r = rados_remove(pool_.io(), DirObject(path).c_str());
    return r < 0 && r != -ENOENT ? FromErrno(r, "removing " + pool_.Where(DirObject(path))) : IOStatus::OK();
  }

  IOStatus GetFileSize(const std::string& fname, const IOOptions&, uint64_t* size, IODebugContext*) override {
    Entry e;
    FileAttrs attrs;
    IOStatus s = OpenForRead(fname, &e, &attrs);
    if (s.ok()) *size = attrs.size;
    return s;
  }

  IOStatus GetFileModificationTime(const std::string& fname, const IOOptions&, uint64_t* mtime,
                                   IODebugContext*) override {
    Entry e;
    IOStatus s = pool_.LookupFile(Normalize(fname), &e);
    if (!s.ok()) return s;
    uint64_t size = 0;
    time_t t = 0;
    const int r = rados_stat(pool_.io(), ChunkObject(e.id, 0).c_str(), &size, &t);
    if (r < 0) return FromErrno(r, "reading " + pool_.Where(ChunkObject(e.id, 0)));
    *mtime = static_cast<uint64_t>(t);
    return IOStatus::OK();
  }

  IOStatus RenameFile(const std::string& src, const std::string& target, const IOOptions&,
                      IODebugContext*) override {
    const std::string from = Normalize(src), to = Normalize(target);
    Entry e, replaced;
    IOStatus s = pool_.LookupFile(from, &e);
    if (!s.ok()) return s;
    if (from == to) return IOStatus::OK();
    IOStatus old = pool_.Lookup(to, &replaced);
    if (old.ok() && replaced.is_dir) return IOStatus::IOError(target + " is a directory");
    if (!old.ok() && !old.IsPathNotFound()) return old;
    std::string from_dir, from_name, to_dir, to_name;
    SplitPath(from, &from_dir, &from_name);
    SplitPath(to, &to_dir, &to_name);
    if (from_dir == to_dir) {
      s = pool_.SetEntry(to_dir, to_name, e, from_name);
    } else {
      s = pool_.SetEntry(to_dir, to_name, e);
      if (s.ok()) s = pool_.RemoveEntry(from_dir, from_name);
    }
    if (s.ok() && old.ok() && replaced.id != e.id) s = pool_.Unlink(replaced.id);
    return s;
  }

  IOStatus LinkFile(const std::string& src, const std::string& target, const IOOptions&, IODebugContext*) override {
    const std::string from = Normalize(src), to = Normalize(target);
    Entry e, existing;
    IOStatus s = pool_.LookupFile(from, &e);
    if (!s.ok()) return s;
    s = pool_.Lookup(to, &existing);
    if (s.ok()) return IOStatus::IOError(target + " already exists");
    if (!s.IsPathNotFound()) return s;
    FileAttrs attrs;
    s = pool_.ReadAttrs(e.id, &attrs);
    if (s.ok()) s = pool_.SetAttr(e.id, "nlink", attrs.nlink + 1);
    if (!s.ok()) return s;
    std::string dir, name;
    SplitPath(to, &dir, &name);
    s = pool_.SetEntry(dir, name, e);
    if (!s.ok()) pool_.SetAttr(e.id, "nlink", attrs.nlink);
    return s;
  }

  IOStatus NumFileLinks(const std::string& fname, const IOOptions&, uint64_t* count, IODebugContext*) override {
    Entry e;
    FileAttrs attrs;
    IOStatus s = OpenForRead(fname, &e, &attrs);
    if (s.ok()) *count = attrs.nlink;
    return s;
  }

  IOStatus AreFilesSame(const std::string& first, const std::string& second, const IOOptions&, bool* res,
                        IODebugContext*) override {
    Entry a, b;
    IOStatus s = pool_.LookupFile(Normalize(first), &a);
    if (s.ok()) s = pool_.LookupFile(Normalize(second), &b);
    if (s.ok()) *res = a.id == b.id;
    return s;
  }

  IOStatus LockFile(const std::string& fname, const IOOptions& io_opts, rocksdb::FileLock** lock,
                    IODebugContext* dbg) override {
    const std::string path = Normalize(fname);
    Entry e;
    IOStatus s = pool_.LookupFile(path, &e);
    if (s.IsPathNotFound()) {
      std::unique_ptr<rocksdb::FSWritableFile> file;
      s = NewWritableFile(path, FileOptions(), &file, dbg);
      if (s.ok()) s = file->Close(io_opts, dbg);
      if (s.ok()) s = pool_.LookupFile(path, &e);
    }
    if (!s.ok()) return s;
    const std::string oid = ChunkObject(e.id, 0);
    const std::string cookie = NewFileId();
    const int r = rados_lock_exclusive(pool_.io(), oid.c_str(), kLockName, cookie.c_str(), "rocksdb LOCK", nullptr, 0);
    if (r == -EBUSY || r == -EEXIST)
      return IOStatus::IOError("lock " + path + ": held by another process (" + pool_.Where(oid) +
                               "; if that process is gone: rados lock break)");
    if (r < 0) return FromErrno(r, "locking " + pool_.Where(oid));
    *lock = new RadosFileLock(oid, cookie);
    return IOStatus::OK();
  }

  IOStatus UnlockFile(rocksdb::FileLock* lock, const IOOptions&, IODebugContext*) override {
    auto* l = static_cast<RadosFileLock*>(lock);
    const int r = rados_unlock(pool_.io(), l->oid.c_str(), kLockName, l->cookie.c_str());
    IOStatus s = r < 0 && r != -ENOENT ? FromErrno(r, "unlocking " + pool_.Where(l->oid)) : IOStatus::OK();
    delete l;
    return s;
  }

  IOStatus GetTestDirectory(const IOOptions&, std::string* path, IODebugContext*) override {
    *path = "/rocksdb-test";
    return IOStatus::OK();
  }

  IOStatus NewLogger(const std::string& fname, const IOOptions&, std::shared_ptr<rocksdb::Logger>* result,
                     IODebugContext* dbg) override {
    std::unique_ptr<rocksdb::FSWritableFile> file;
    IOStatus s = NewWritableFile(fname, FileOptions(), &file, dbg);
    if (s.ok()) *result = std::make_shared<RadosLogger>(std::move(file));
    return s;
  }

  IOStatus GetAbsolutePath(const std::string& db_path, const IOOptions&, std::string* output_path,
                           IODebugContext*) override {
    *output_path = Normalize(db_path);
    return IOStatus::OK();
  }

  IOStatus IsDirectory(const std::string& path, const IOOptions&, bool* is_dir, IODebugContext*) override {
    Entry e;
    IOStatus s = pool_.Lookup(Normalize(path), &e);
    if (s.ok()) *is_dir = e.is_dir;
    return s;
  }

 private:
  IOStatus OpenForRead(const std::string& fname, Entry* e, FileAttrs* attrs) {
    IOStatus s = pool_.LookupFile(Normalize(fname), e);
    return s.ok() ? pool_.ReadAttrs(e->id, attrs) : s;
  }

  // Creates the directory object and its entry in the parent, which must exist.
  IOStatus MakeDir(const std::string& path) {
    if (path == "/") return IOStatus::OK();
    WriteOp wop;
    rados_write_op_create(wop.op, LIBRADOS_CREATE_IDEMPOTENT, nullptr);
    const int r = rados_write_op_operate(wop.op, pool_.io(), DirObject(path).c_str(), nullptr, 0);
    if (r < 0) return FromErrno(r, "creating " + pool_.Where(DirObject(path)));
    std::string parent, name;
    SplitPath(path, &parent, &name);
    return pool_.SetEntry(parent, name, Entry{true, ""});
  }

  Pool pool_;
};

}  // namespace

std::shared_ptr<rocksdb::FileSystem> NewRadosFileSystem(rados_ioctx_t io, const std::string& pool,
                                                        uint64_t chunk_bytes) {
  return std::make_shared<RadosFileSystem>(io, pool, chunk_bytes);
}

}  // namespace deltameta
