// Where stores and tables live: a local directory, or a Ceph RADOS pool given as
// rados://POOL/PREFIX (builds with DELTAMETA_WITH_RADOS). A location resolves to a RocksDB
// Env and a path inside it, so the store code is the same for both; the helpers below are
// what the tools need beyond RocksDB (existence, listing, creating and removing trees).
#pragma once

#include <string>
#include <vector>

#include <rocksdb/env.h>

#include "deltameta/status.h"

namespace deltameta {

class StorageLocation {
 public:
  // Resolves `uri`: a local path (made absolute) or rados://POOL/PREFIX, which connects to
  // the cluster once per process (see rados_cluster.h for the settings) and opens the pool.
  // A failure names the problem and the fix.
  static Status Resolve(const std::string& uri, StorageLocation* out);

  const std::string& uri() const { return uri_; }  // e.g. rados://deltameta/run1/r0
  rocksdb::Env* env() const { return env_; }
  const std::string& path() const { return path_; }  // the path inside env()
  bool is_rados() const { return rados_; }

  // The location `name` below this one (same Env).
  StorageLocation Child(const std::string& name) const;

  // OK if this file or directory exists, NotFound if not; any other failure (a RADOS
  // request that timed out, a local permission error) is returned as it is, never taken
  // for "missing".
  Status Exists() const;
  // Sets *has to whether this is a directory holding at least one entry (false where
  // nothing or a file is there); a listing that fails (a RADOS request that timed out, a
  // parent that is a file) is returned as "cannot list URI: ...", never taken for "empty".
  Status HasEntries(bool* has) const;
  // The names directly below this directory, sorted.
  Status ListChildren(std::vector<std::string>* names) const;
  // Creates this directory and any missing parents.
  Status CreateDirs() const;
  // Removes this file or directory tree; OK if it does not exist.
  Status RemoveAll() const;

 private:
  std::string uri_;
  std::string path_;
  rocksdb::Env* env_ = nullptr;
  bool rados_ = false;
};

}  // namespace deltameta
