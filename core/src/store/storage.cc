// Storage locations (local directory or rados://POOL/PREFIX): see storage.h.
#include "deltameta/storage.h"

#include <algorithm>
#include <filesystem>

#include "store/rocksdb_status.h"

#ifdef DELTAMETA_WITH_RADOS
#include "rados/rados_cluster.h"
#endif

namespace deltameta {
namespace {

constexpr char kRadosScheme[] = "rados://";

}  // namespace

Status StorageLocation::Resolve(const std::string& uri, StorageLocation* out) {
  if (uri.empty()) {
    return Status::InvalidArgument("an empty storage location was given: pass a directory or rados://POOL/PREFIX");
  }
  if (uri.rfind(kRadosScheme, 0) == 0) {
    const std::string rest = uri.substr(sizeof(kRadosScheme) - 1);
    const std::string pool = rest.substr(0, rest.find('/'));
    if (pool.empty()) {
      return Status::InvalidArgument(uri + " names no pool: write rados://POOL/PREFIX");
    }
#ifdef DELTAMETA_WITH_RADOS
    std::string error;
    rocksdb::Env* env = RadosEnv(pool, &error);
    if (env == nullptr) return Status::IOError(error);
    out->uri_ = uri;
    out->path_ = "/" + (pool.size() < rest.size() ? rest.substr(pool.size() + 1) : std::string());
    out->env_ = env;
    out->rados_ = true;
    return Status::OK();
#else
    return Status::InvalidArgument(uri +
                                   " needs RADOS support, which this build lacks: rebuild with "
                                   "-DDELTAMETA_WITH_RADOS=ON (Spack: +rados)");
#endif
  }
  if (uri.find("://") != std::string::npos) {
    return Status::InvalidArgument(uri + " has an unknown scheme: use a local directory or rados://POOL/PREFIX");
  }
  std::error_code ec;
  out->path_ = std::filesystem::absolute(uri, ec).lexically_normal().string();
  if (out->path_.size() > 1 && out->path_.back() == '/') out->path_.pop_back();
  out->uri_ = out->path_;  // absolute, so that other processes resolve it alike
  out->env_ = rocksdb::Env::Default();
  out->rados_ = false;
  return Status::OK();
}

StorageLocation StorageLocation::Child(const std::string& name) const {
  StorageLocation child = *this;
  child.uri_ = uri_ + "/" + name;
  child.path_ = (path_ == "/" ? "" : path_) + "/" + name;
  return child;
}

Status StorageLocation::Exists() const {
  const rocksdb::Status s = env_->FileExists(path_);
  if (s.ok() || s.IsNotFound()) return s.ok() ? Status::OK() : Status::NotFound(uri_ + " does not exist");
  return FromRocksDb(s).WithContext("cannot tell whether " + uri_ + " exists");
}

Status StorageLocation::HasEntries(bool* has) const {
  *has = false;
  bool is_dir = false;
  const rocksdb::Status s = env_->IsDirectory(path_, &is_dir);
  if (s.IsNotFound() || s.IsPathNotFound() || (s.ok() && !is_dir)) return Status::OK();  // nothing or a file
  std::vector<std::string> names;
  const Status listed = s.ok() ? ListChildren(&names) : FromRocksDb(s);
  *has = !names.empty();
  return listed.WithContext("cannot list " + uri_);
}

Status StorageLocation::ListChildren(std::vector<std::string>* names) const {
  names->clear();
  bool is_dir = false;
  rocksdb::Status s = env_->IsDirectory(path_, &is_dir);
  if (s.ok() && !is_dir) return FromRocksDb(rocksdb::Status::InvalidArgument(uri_ + " is not a directory"));
  if (s.ok()) s = env_->GetChildren(path_, names);
  if (!s.ok()) return FromRocksDb(s);
  names->erase(std::remove_if(names->begin(), names->end(), [](const std::string& n) { return n == "." || n == ".."; }),
               names->end());
  std::sort(names->begin(), names->end());
  return Status::OK();
}

Status StorageLocation::CreateDirs() const {
  for (size_t slash = path_.find('/', 1);; slash = path_.find('/', slash + 1)) {
    const std::string prefix = path_.substr(0, slash);
    rocksdb::Status s = env_->CreateDirIfMissing(prefix);
    if (!s.ok()) return FromRocksDb(s);
    if (slash == std::string::npos) return Status::OK();
  }
}

Status StorageLocation::RemoveAll() const {
  if (!rados_) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    return ec ? FromRocksDb(rocksdb::Status::IOError("cannot remove " + path_ + ": " + ec.message())) : Status::OK();
  }
  bool is_dir = false;
  rocksdb::Status s = env_->IsDirectory(path_, &is_dir);
  if (s.IsNotFound() || s.IsPathNotFound()) return Status::OK();
  if (!s.ok()) return FromRocksDb(s);
  if (!is_dir) return FromRocksDb(env_->DeleteFile(path_));
  std::vector<std::string> names;
  Status listed = ListChildren(&names);
  for (size_t i = 0; listed.ok() && i < names.size(); i++) listed = Child(names[i]).RemoveAll();
  return listed.ok() ? FromRocksDb(env_->DeleteDir(path_)) : listed;
}

}  // namespace deltameta
