// One process's CephFS mount through libcephfs (loaded at run time: cephfs_api.h), as one
// user: the cluster's config from CEPH_CONF (else Ceph's search, /etc/ceph/ceph.conf) and
// CEPH_ARGS, a mount that gives up after a timeout, and one-line errors naming the fix.
// Used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cephfs/cephfs_api.h"

namespace deltameta {

class CephfsMount {
 public:
  // Mounts file system `fs_name` ("" for the cluster's default) as uid:gid, within
  // `timeout_s` seconds. nullptr with *error on failure.
  static std::unique_ptr<CephfsMount> Open(const std::string& fs_name, uint32_t uid, uint32_t gid, int timeout_s,
                                           std::string* error);
  ~CephfsMount();  // unmounts: the client's caps go back to the MDS

  const CephfsApi& api() const { return *api_; }
  ceph_mount_info* get() const { return mount_; }
  // Makes directory `path` and its missing parents, and gives it mode `mode` past the
  // umask. False with *error on failure.
  bool MakeDirs(const std::string& path, unsigned mode, std::string* error);
  // Counts the entries of directory `path` (without . and ..). False with *error.
  bool CountEntries(const std::string& path, uint64_t* entries, std::string* error);

 private:
  CephfsMount(const CephfsApi* api, ceph_mount_info* mount) : api_(api), mount_(mount) {}
  const CephfsApi* api_;
  ceph_mount_info* mount_;
};

}  // namespace deltameta
