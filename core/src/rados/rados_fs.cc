// RocksDB file system over a RADOS pool: see rados_fs.h for the data model.
#include "rados/rados_fs.h"

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <deque>
#include <mutex>
#include <vector>

#include "rados/rados_api.h"
#include "rados/rados_give_up.h"
#include "rados/rados_pool.h"

namespace deltameta {
namespace {

using rocksdb::FileOptions;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

constexpr uint64_t kIssueBytes = 1 << 20;         // buffered appends are sent in pieces of this
constexpr uint64_t kMaxInflightBytes = 32 << 20;  // sent but not yet acknowledged, per file

// ---- files ----

class RadosRandomAccessFile : public rocksdb::FSRandomAccessFile {
 public:
  RadosRandomAccessFile(const RadosPool* pool, std::string id, FileAttrs attrs)
      : pool_(pool), id_(std::move(id)), attrs_(attrs) {}
  IOStatus Read(uint64_t offset, size_t n, const IOOptions&, Slice* result, char* scratch,
                IODebugContext*) const override {
    return pool_->Read(id_, attrs_, offset, n, result, scratch);
  }

 private:
  const RadosPool* pool_;
  std::string id_;
  FileAttrs attrs_;
};

class RadosSequentialFile : public rocksdb::FSSequentialFile {
 public:
  RadosSequentialFile(const RadosPool* pool, std::string id, FileAttrs attrs)
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
  const RadosPool* pool_;
  std::string id_;
  FileAttrs attrs_;
  uint64_t offset_ = 0;
};

class RadosWritableFile : public rocksdb::FSWritableFile {
 public:
  RadosWritableFile(const RadosPool* pool, std::string id, uint64_t chunk, uint64_t size)
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
      if (GaveUpOnRados()) return error_ = FromErrno(kNotTried, "writing " + pool_->Where(f.oid));
      f.done = NewRadosCompletion();
      const int r = Librados().rados_aio_write(pool_->io(), f.oid.c_str(), f.done, data->data() + pos, len, in_chunk);
      if (r < 0) {
        Librados().rados_aio_release(f.done);
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
    const int r = AwaitRados(pool_->io(), f.done);
    Librados().rados_aio_release(f.done);
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
  const RadosPool* pool_;
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
  RadosFileSystem(rados_ioctx_t io, const std::string& pool, uint64_t chunk, uint64_t cache_bytes)
      : pool_(io, pool, chunk, cache_bytes) {}

  const char* Name() const override { return "DeltametaRadosFileSystem"; }

  IOStatus NewSequentialFile(const std::string& fname, const FileOptions&,
                             std::unique_ptr<rocksdb::FSSequentialFile>* result, IODebugContext*) override {
    RadosEntry e;
    FileAttrs attrs;
    IOStatus s = OpenForRead(fname, &e, &attrs);
    if (s.ok()) result->reset(new RadosSequentialFile(&pool_, e.id, attrs));
    return s;
  }

  IOStatus NewRandomAccessFile(const std::string& fname, const FileOptions&,
                               std::unique_ptr<rocksdb::FSRandomAccessFile>* result, IODebugContext*) override {
    RadosEntry e;
    FileAttrs attrs;
    IOStatus s = OpenForRead(fname, &e, &attrs);
    if (s.ok()) result->reset(new RadosRandomAccessFile(&pool_, e.id, attrs));
    return s;
  }

  IOStatus NewWritableFile(const std::string& fname, const FileOptions&,
                           std::unique_ptr<rocksdb::FSWritableFile>* result, IODebugContext*) override {
    const std::string path = NormalizeRadosPath(fname);
    if (path == "/") return IOStatus::IOError("/ is a directory");
    std::string dir, name;
    SplitRadosPath(path, &dir, &name);
    RadosEntry old;
    IOStatus found = pool_.Lookup(path, &old);
    if (found.ok() && old.is_dir) return IOStatus::IOError(path + " is a directory");
    if (!found.ok() && !found.IsPathNotFound()) return found;
    const std::string id = NewFileId();
    IOStatus s = pool_.CreateFile(id);
    if (s.ok()) s = pool_.SetEntry(dir, name, RadosEntry{false, id});
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
    RadosEntry e;
    FileAttrs attrs;
    IOStatus s = OpenForRead(fname, &e, &attrs);
    if (s.IsPathNotFound()) return NewWritableFile(fname, options, result, dbg);
    if (s.ok()) result->reset(new RadosWritableFile(&pool_, e.id, attrs.chunk, attrs.size));
    return s;
  }

  IOStatus NewDirectory(const std::string& name, const IOOptions&, std::unique_ptr<rocksdb::FSDirectory>* result,
                        IODebugContext*) override {
    RadosEntry e;
    IOStatus s = pool_.Lookup(NormalizeRadosPath(name), &e);
    if (s.ok() && !e.is_dir) return IOStatus::IOError(name + " is not a directory");
    if (s.ok()) result->reset(new RadosDirectory());
    return s;
  }

  IOStatus FileExists(const std::string& fname, const IOOptions&, IODebugContext*) override {
    RadosEntry e;
    IOStatus s = pool_.Lookup(NormalizeRadosPath(fname), &e);
    return s.IsPathNotFound() ? IOStatus::NotFound(fname) : s;
  }

  IOStatus GetChildren(const std::string& dir, const IOOptions&, std::vector<std::string>* result,
                       IODebugContext*) override {
    const std::string path = NormalizeRadosPath(dir);
    RadosEntry e;
    IOStatus s = pool_.Lookup(path, &e);
    if (s.ok() && !e.is_dir) return IOStatus::IOError(dir + " is not a directory");
    return s.ok() ? pool_.List(path, result) : s;
  }

  IOStatus DeleteFile(const std::string& fname, const IOOptions&, IODebugContext*) override {
    const std::string path = NormalizeRadosPath(fname);
    RadosEntry e;
    IOStatus s = pool_.LookupFile(path, &e);
    if (!s.ok()) return s;
    std::string dir, name;
    SplitRadosPath(path, &dir, &name);
    s = pool_.RemoveEntry(dir, name);
    return s.ok() ? pool_.Unlink(e.id) : s;
  }

  IOStatus CreateDir(const std::string& dirname, const IOOptions&, IODebugContext*) override {
    const std::string path = NormalizeRadosPath(dirname);
    RadosEntry e;
    IOStatus s = pool_.Lookup(path, &e);
    if (s.ok()) return IOStatus::IOError(dirname + " already exists");
    return s.IsPathNotFound() ? pool_.MakeDir(path) : s;
  }

  IOStatus CreateDirIfMissing(const std::string& dirname, const IOOptions&, IODebugContext*) override {
    const std::string path = NormalizeRadosPath(dirname);
    RadosEntry e;
    IOStatus s = pool_.Lookup(path, &e);
    if (s.ok()) return e.is_dir ? IOStatus::OK() : IOStatus::IOError(dirname + " exists and is not a directory");
    return s.IsPathNotFound() ? pool_.MakeDir(path) : s;
  }

  IOStatus DeleteDir(const std::string& dirname, const IOOptions&, IODebugContext*) override {
    const std::string path = NormalizeRadosPath(dirname);
    if (path == "/") return IOStatus::IOError("the root directory cannot be deleted");
    RadosEntry e;
    IOStatus s = pool_.Lookup(path, &e);
    if (!s.ok()) return s;
    if (!e.is_dir) return IOStatus::IOError(dirname + " is not a directory");
    std::vector<std::string> names;
    bool more = false;
    s = pool_.ListPage(path, "", 1, &names, &more);
    if (!s.ok()) return s;
    if (!names.empty()) return IOStatus::IOError(dirname + " is not empty");
    std::string parent, name;
    SplitRadosPath(path, &parent, &name);
    s = pool_.RemoveEntry(parent, name);
    if (!s.ok()) return s;
    const int r = pool_.Remove(DirObject(path));
    return r < 0 && r != -ENOENT ? FromErrno(r, "removing " + pool_.Where(DirObject(path))) : IOStatus::OK();
  }

  IOStatus GetFileSize(const std::string& fname, const IOOptions&, uint64_t* size, IODebugContext*) override {
    RadosEntry e;
    FileAttrs attrs;
    IOStatus s = OpenForRead(fname, &e, &attrs);
    if (s.ok()) *size = attrs.size;
    return s;
  }

  IOStatus GetFileModificationTime(const std::string& fname, const IOOptions&, uint64_t* mtime,
                                   IODebugContext*) override {
    RadosEntry e;
    IOStatus s = pool_.LookupFile(NormalizeRadosPath(fname), &e);
    if (!s.ok()) return s;
    uint64_t size = 0;
    time_t t = 0;
    const std::string oid = ChunkObject(e.id, 0);
    const int r = RadosWait(pool_.io(), [&](rados_completion_t done) {
      return Librados().rados_aio_stat(pool_.io(), oid.c_str(), done, &size, &t);
    });
    if (r < 0) return FromErrno(r, "reading " + pool_.Where(ChunkObject(e.id, 0)));
    *mtime = static_cast<uint64_t>(t);
    return IOStatus::OK();
  }

  IOStatus RenameFile(const std::string& src, const std::string& target, const IOOptions&, IODebugContext*) override {
    const std::string from = NormalizeRadosPath(src), to = NormalizeRadosPath(target);
    RadosEntry e, replaced;
    IOStatus s = pool_.LookupFile(from, &e);
    if (!s.ok()) return s;
    if (from == to) return IOStatus::OK();
    IOStatus old = pool_.Lookup(to, &replaced);
    if (old.ok() && replaced.is_dir) return IOStatus::IOError(target + " is a directory");
    if (!old.ok() && !old.IsPathNotFound()) return old;
    std::string from_dir, from_name, to_dir, to_name;
    SplitRadosPath(from, &from_dir, &from_name);
    SplitRadosPath(to, &to_dir, &to_name);
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
    const std::string from = NormalizeRadosPath(src), to = NormalizeRadosPath(target);
    RadosEntry e, existing;
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
    SplitRadosPath(to, &dir, &name);
    s = pool_.SetEntry(dir, name, e);
    if (!s.ok()) pool_.SetAttr(e.id, "nlink", attrs.nlink);
    return s;
  }

  IOStatus NumFileLinks(const std::string& fname, const IOOptions&, uint64_t* count, IODebugContext*) override {
    RadosEntry e;
    FileAttrs attrs;
    IOStatus s = OpenForRead(fname, &e, &attrs);
    if (s.ok()) *count = attrs.nlink;
    return s;
  }

  IOStatus AreFilesSame(const std::string& first, const std::string& second, const IOOptions&, bool* res,
                        IODebugContext*) override {
    RadosEntry a, b;
    IOStatus s = pool_.LookupFile(NormalizeRadosPath(first), &a);
    if (s.ok()) s = pool_.LookupFile(NormalizeRadosPath(second), &b);
    if (s.ok()) *res = a.id == b.id;
    return s;
  }

  IOStatus LockFile(const std::string& fname, const IOOptions& io_opts, rocksdb::FileLock** lock,
                    IODebugContext* dbg) override {
    const std::string path = NormalizeRadosPath(fname);
    RadosEntry e;
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
    // librados has no asynchronous form of this call.
    const int r = RadosCall([&] {
      return Librados().rados_lock_exclusive(pool_.io(), oid.c_str(), kLockName, cookie.c_str(), "rocksdb LOCK",
                                             nullptr, 0);
    });
    if (r == -EBUSY || r == -EEXIST)
      return IOStatus::IOError("lock " + path + ": held by another process (" + pool_.Where(oid) +
                               "; if that process is gone: rados lock break)");
    if (r < 0) return FromErrno(r, "locking " + pool_.Where(oid));
    *lock = new RadosFileLock(oid, cookie);
    return IOStatus::OK();
  }

  IOStatus UnlockFile(rocksdb::FileLock* lock, const IOOptions&, IODebugContext*) override {
    auto* l = static_cast<RadosFileLock*>(lock);
    const int r = RadosWait(pool_.io(), [&](rados_completion_t done) {
      return Librados().rados_aio_unlock(pool_.io(), l->oid.c_str(), kLockName, l->cookie.c_str(), done);
    });
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
    *output_path = NormalizeRadosPath(db_path);
    return IOStatus::OK();
  }

  IOStatus IsDirectory(const std::string& path, const IOOptions&, bool* is_dir, IODebugContext*) override {
    RadosEntry e;
    IOStatus s = pool_.Lookup(NormalizeRadosPath(path), &e);
    if (s.ok()) *is_dir = e.is_dir;
    return s;
  }

 private:
  IOStatus OpenForRead(const std::string& fname, RadosEntry* e, FileAttrs* attrs) {
    IOStatus s = pool_.LookupFile(NormalizeRadosPath(fname), e);
    return s.ok() ? pool_.ReadAttrs(e->id, attrs) : s;
  }

  RadosPool pool_;
};

}  // namespace

std::shared_ptr<rocksdb::FileSystem> NewRadosFileSystem(rados_ioctx_t io, const std::string& pool, uint64_t chunk_bytes,
                                                        uint64_t cache_bytes) {
  return std::make_shared<RadosFileSystem>(io, pool, chunk_bytes, cache_bytes);
}

}  // namespace deltameta
