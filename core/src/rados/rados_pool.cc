// Object-level operations of the RADOS file system: see rados_pool.h.
#include "rados/rados_pool.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>

#include "rados/rados_api.h"
#include "rados/rados_give_up.h"

namespace deltameta {

using rocksdb::IOStatus;
using rocksdb::Slice;

namespace {

constexpr size_t kListPage = 1000;

std::string EncodeEntry(const RadosEntry& e) { return e.is_dir ? "d" : "f:" + e.id; }

bool DecodeEntry(const char* v, size_t n, RadosEntry* e) {
  if (n == 1 && v[0] == 'd') {
    *e = RadosEntry{true, ""};
    return true;
  }
  if (n > 2 && v[0] == 'f' && v[1] == ':') {
    *e = RadosEntry{false, std::string(v + 2, n - 2)};
    return true;
  }
  return false;
}

// Owns a librados write or read op.
struct WriteOp {
  rados_write_op_t op = Librados().rados_create_write_op();
  ~WriteOp() { Librados().rados_release_write_op(op); }
};
struct ReadOp {
  rados_read_op_t op = Librados().rados_create_read_op();
  ~ReadOp() { Librados().rados_release_read_op(op); }
};

}  // namespace

std::string NormalizeRadosPath(const std::string& path) {
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

void SplitRadosPath(const std::string& path, std::string* dir, std::string* name) {
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
  static thread_local std::mt19937_64 rng(std::random_device{}() ^ (static_cast<uint64_t>(std::time(nullptr)) << 20));
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
  if (r == kNotTried)
    return IOStatus::IOError(what +
                             ": not tried, as an earlier call got no answer from Ceph in time: is the cluster "
                             "up and the pool not full?");
  return IOStatus::IOError(msg);
}

// One shard: RocksDB's default splits a cache into up to 64 shards of at least 512 KiB
// (256 MiB: 64 of 4 MiB), and a shard keeps no entry larger than itself, so whole 4 MiB
// objects were never kept and every read of one went to RADOS again.
RadosPool::RadosPool(rados_ioctx_t io, std::string name, uint64_t chunk, uint64_t cache_bytes)
    : io_(io),
      name_(std::move(name)),
      chunk_(chunk),
      cache_(cache_bytes > 0 ? rocksdb::NewLRUCache(cache_bytes, /*num_shard_bits=*/0) : nullptr) {}

std::string RadosPool::Where(const std::string& object) const { return "RADOS object " + name_ + "/" + object; }

int RadosPool::Operate(rados_write_op_t op, const std::string& oid) const {
  return RadosWait(io_, [&](rados_completion_t done) {
    return Librados().rados_aio_write_op_operate(op, io_, done, oid.c_str(), nullptr, 0);
  });
}

int RadosPool::OperateRead(rados_read_op_t op, const std::string& oid) const {
  return RadosWait(io_, [&](rados_completion_t done) {
    return Librados().rados_aio_read_op_operate(op, io_, done, oid.c_str(), 0);
  });
}

int RadosPool::Remove(const std::string& oid) const {
  return RadosWait(io_, [&](rados_completion_t done) { return Librados().rados_aio_remove(io_, oid.c_str(), done); });
}

IOStatus RadosPool::Lookup(const std::string& path, RadosEntry* entry) const {
  if (path == "/") {
    *entry = RadosEntry{true, ""};
    return IOStatus::OK();
  }
  std::string dir, name;
  SplitRadosPath(path, &dir, &name);
  ReadOp rop;
  const char* keys[] = {name.c_str()};
  rados_omap_iter_t it = nullptr;
  int prval = 0;
  Librados().rados_read_op_omap_get_vals_by_keys(rop.op, keys, 1, &it, &prval);
  const int r = OperateRead(rop.op, DirObject(dir));
  if (r < 0 || prval < 0) {
    if (it) Librados().rados_omap_get_end(it);
    const int e = r < 0 ? r : prval;
    return e == -ENOENT ? IOStatus::PathNotFound(path + ": no such file or directory")
                        : FromErrno(e, "looking up " + path + " in " + Where(DirObject(dir)));
  }
  char *key = nullptr, *val = nullptr;
  size_t len = 0;
  bool found = Librados().rados_omap_get_next(it, &key, &val, &len) == 0 && key != nullptr;
  bool valid = found && DecodeEntry(val, len, entry);
  Librados().rados_omap_get_end(it);
  if (!found) return IOStatus::PathNotFound(path + ": no such file or directory");
  if (!valid) return IOStatus::Corruption("malformed directory entry for " + path + " in " + Where(DirObject(dir)));
  return IOStatus::OK();
}

IOStatus RadosPool::LookupFile(const std::string& path, RadosEntry* entry) const {
  IOStatus s = Lookup(path, entry);
  if (s.ok() && entry->is_dir) return IOStatus::IOError(path + " is a directory");
  return s;
}

IOStatus RadosPool::SetEntry(const std::string& dir, const std::string& name, const RadosEntry& entry,
                             const std::string& name_to_remove) const {
  WriteOp wop;
  if (dir != "/") Librados().rados_write_op_assert_exists(wop.op);
  const std::string value = EncodeEntry(entry);
  const char* keys[] = {name.c_str()};
  const char* vals[] = {value.data()};
  const size_t lens[] = {value.size()};
  Librados().rados_write_op_omap_set(wop.op, keys, vals, lens, 1);
  if (!name_to_remove.empty()) {
    const char* rm[] = {name_to_remove.c_str()};
    Librados().rados_write_op_omap_rm_keys(wop.op, rm, 1);
  }
  const int r = Operate(wop.op, DirObject(dir));
  if (r == -ENOENT) return IOStatus::PathNotFound(dir + ": no such directory");
  return r < 0 ? FromErrno(r, "updating " + Where(DirObject(dir))) : IOStatus::OK();
}

IOStatus RadosPool::RemoveEntry(const std::string& dir, const std::string& name) const {
  WriteOp wop;
  const char* keys[] = {name.c_str()};
  Librados().rados_write_op_omap_rm_keys(wop.op, keys, 1);
  const int r = Operate(wop.op, DirObject(dir));
  return r < 0 ? FromErrno(r, "updating " + Where(DirObject(dir))) : IOStatus::OK();
}

IOStatus RadosPool::ListPage(const std::string& dir, const std::string& after, size_t max,
                             std::vector<std::string>* names, bool* more) const {
  ReadOp rop;
  rados_omap_iter_t it = nullptr;
  unsigned char pmore = 0;
  int prval = 0;
  Librados().rados_read_op_omap_get_keys2(rop.op, after.c_str(), max, &it, &pmore, &prval);
  const int r = OperateRead(rop.op, DirObject(dir));
  if (r < 0 || prval < 0) {
    if (it) Librados().rados_omap_get_end(it);
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
  while (Librados().rados_omap_get_next2(it, &key, nullptr, &key_len, nullptr) == 0 && key != nullptr) {
    names->emplace_back(key, key_len);
  }
  Librados().rados_omap_get_end(it);
  *more = pmore != 0;
  return IOStatus::OK();
}

IOStatus RadosPool::List(const std::string& dir, std::vector<std::string>* names) const {
  names->clear();
  bool more = true;
  while (more) {
    const std::string after = names->empty() ? "" : names->back();
    IOStatus s = ListPage(dir, after, kListPage, names, &more);
    if (!s.ok()) return s;
  }
  return IOStatus::OK();
}

IOStatus RadosPool::ReadAttrs(const std::string& id, FileAttrs* attrs) const {
  const std::string oid = ChunkObject(id, 0);
  ReadOp rop;
  rados_xattrs_iter_t it = nullptr;
  int prval = 0;
  Librados().rados_read_op_getxattrs(rop.op, &it, &prval);
  const int r = OperateRead(rop.op, oid);
  if (r < 0 || prval < 0) {
    if (it) Librados().rados_getxattrs_end(it);
    const int e = r < 0 ? r : prval;
    if (e == -ENOENT) return IOStatus::Corruption("missing " + Where(oid) + ": the file's data is gone");
    return FromErrno(e, "reading " + Where(oid));
  }
  const char* name = nullptr;
  const char* val = nullptr;
  size_t len = 0;
  bool has_chunk = false;
  while (Librados().rados_getxattrs_next(it, &name, &val, &len) == 0 && name != nullptr) {
    const uint64_t v = std::strtoull(std::string(val, len).c_str(), nullptr, 10);
    if (std::strcmp(name, "size") == 0) attrs->size = v;
    if (std::strcmp(name, "nlink") == 0) attrs->nlink = v;
    if (std::strcmp(name, "chunk") == 0) {
      attrs->chunk = v;
      has_chunk = true;
    }
  }
  Librados().rados_getxattrs_end(it);
  if (!has_chunk || attrs->chunk == 0) return IOStatus::Corruption(Where(oid) + " has no valid 'chunk' attribute");
  return IOStatus::OK();
}

IOStatus RadosPool::SetAttr(const std::string& id, const char* name, uint64_t value) const {
  const std::string oid = ChunkObject(id, 0);
  const std::string v = std::to_string(value);
  const int r = RadosWait(io_, [&](rados_completion_t done) {
    return Librados().rados_aio_setxattr(io_, oid.c_str(), done, name, v.data(), v.size());
  });
  return r < 0 ? FromErrno(r, "updating " + Where(oid)) : IOStatus::OK();
}

IOStatus RadosPool::MakeDir(const std::string& path) const {
  if (path == "/") return IOStatus::OK();
  WriteOp wop;
  Librados().rados_write_op_create(wop.op, LIBRADOS_CREATE_IDEMPOTENT, nullptr);
  const int r = Operate(wop.op, DirObject(path));
  if (r < 0) return FromErrno(r, "creating " + Where(DirObject(path)));
  std::string parent, name;
  SplitRadosPath(path, &parent, &name);
  return SetEntry(parent, name, RadosEntry{true, ""});
}

IOStatus RadosPool::CreateFile(const std::string& id) const {
  WriteOp wop;
  Librados().rados_write_op_create(wop.op, LIBRADOS_CREATE_EXCLUSIVE, nullptr);
  const std::string chunk = std::to_string(chunk_);
  Librados().rados_write_op_setxattr(wop.op, "size", "0", 1);
  Librados().rados_write_op_setxattr(wop.op, "nlink", "1", 1);
  Librados().rados_write_op_setxattr(wop.op, "chunk", chunk.data(), chunk.size());
  const std::string oid = ChunkObject(id, 0);
  const int r = Operate(wop.op, oid);
  return r < 0 ? FromErrno(r, "creating " + Where(oid)) : IOStatus::OK();
}

IOStatus RadosPool::Unlink(const std::string& id) const {
  FileAttrs attrs;
  IOStatus s = ReadAttrs(id, &attrs);
  if (!s.ok()) return s;
  if (attrs.nlink > 1) return SetAttr(id, "nlink", attrs.nlink - 1);
  const uint64_t chunks = std::max<uint64_t>(1, (attrs.size + attrs.chunk - 1) / attrs.chunk);
  // Unsynced appends may have reached objects past the recorded size.
  for (uint64_t n = 1;; n++) {
    const int r = Remove(ChunkObject(id, n));
    if (r == -ENOENT && n >= chunks) break;
    if (r < 0 && r != -ENOENT) return FromErrno(r, "removing " + Where(ChunkObject(id, n)));
  }
  const int r = Remove(ChunkObject(id, 0));
  return r < 0 && r != -ENOENT ? FromErrno(r, "removing " + Where(ChunkObject(id, 0))) : IOStatus::OK();
}

IOStatus RadosPool::Read(const std::string& id, const FileAttrs& attrs, uint64_t offset, size_t n, Slice* result,
                         char* scratch) const {
  *result = Slice(scratch, 0);
  if (offset >= attrs.size) return IOStatus::OK();
  n = static_cast<size_t>(std::min<uint64_t>(n, attrs.size - offset));
  struct Piece {
    uint64_t chunk, in_chunk;
    size_t len;
    char* dst;
    std::string oid;
    std::string object;  // the fetched object, when caching
    rados_completion_t done = nullptr;
  };
  std::vector<Piece> pieces;
  for (uint64_t pos = offset; pos < offset + n;) {
    const uint64_t chunk = pos / attrs.chunk, in_chunk = pos % attrs.chunk;
    const size_t len = static_cast<size_t>(std::min<uint64_t>(attrs.chunk - in_chunk, offset + n - pos));
    pieces.push_back(Piece{chunk, in_chunk, len, scratch + (pos - offset), ChunkObject(id, chunk), "", nullptr});
    pos += len;
  }
  IOStatus status;
  for (Piece& p : pieces) {
    if (FromCache(p.oid, p.in_chunk, p.len, p.dst)) continue;
    // Caching fetches the whole object (clipped at the file's size), else only the piece.
    char* into = p.dst;
    uint64_t from = p.in_chunk, len = p.len;
    if (cache_) {
      from = 0;
      len = std::min(attrs.chunk, attrs.size - p.chunk * attrs.chunk);
      p.object.resize(len);
      into = p.object.data();
    }
    int r = kNotTried;
    if (!GaveUpOnRados()) {
      p.done = NewRadosCompletion();
      r = Librados().rados_aio_read(io_, p.oid.c_str(), p.done, into, len, from);
    }
    if (r < 0) {
      if (p.done) Librados().rados_aio_release(p.done);
      p.done = nullptr;
      if (status.ok()) status = FromErrno(r, "reading " + Where(p.oid));
    }
  }
  for (Piece& p : pieces) {
    if (p.done == nullptr) continue;
    const int r = AwaitRados(io_, p.done);
    Librados().rados_aio_release(p.done);
    const size_t expected = cache_ ? p.object.size() : p.len;
    if (!status.ok()) continue;
    if (r == -ENOENT) {
      status = IOStatus::Corruption("missing " + Where(p.oid) + ": the file's data is gone");
    } else if (r < 0) {
      status = FromErrno(r, "reading " + Where(p.oid));
    } else if (static_cast<size_t>(r) != expected) {
      status = IOStatus::Corruption(Where(p.oid) + " is shorter than the file's recorded size");
    } else if (cache_) {
      std::memcpy(p.dst, p.object.data() + p.in_chunk, p.len);
      const size_t charge = p.object.size();
      cache_->Insert(p.oid, new std::string(std::move(p.object)), charge,
                     [](const Slice&, void* value) { delete static_cast<std::string*>(value); });
    }
  }
  if (status.ok()) *result = Slice(scratch, n);
  return status;
}

bool RadosPool::FromCache(const std::string& oid, uint64_t in_chunk, size_t len, char* dst) const {
  if (!cache_) return false;
  rocksdb::Cache::Handle* h = cache_->Lookup(oid);
  if (h == nullptr) return false;
  const auto* object = static_cast<const std::string*>(cache_->Value(h));
  const bool covered = object->size() >= in_chunk + len;
  if (covered) std::memcpy(dst, object->data() + in_chunk, len);
  cache_->Release(h);
  return covered;
}

}  // namespace deltameta
