// One process's CephFS mount through libcephfs (loaded at run time: cephfs_api.h), as one
// user: the cluster's config from CEPH_CONF (else Ceph's search, /etc/ceph/ceph.conf) and
// CEPH_ARGS, a mount that gives up after a timeout, every request after it bounded by the
// same timeout (cephfs_watchdog.h), and one-line errors naming the fix. Used by one thread
// at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cephfs/cephfs_api.h"
#include "cephfs/cephfs_watchdog.h"

namespace deltameta {

class CephfsMount {
 public:
  // Mounts file system `fs_name` ("" for the cluster's default) as uid:gid, within
  // `timeout_s` seconds (the tools' --rpc_timeout), which then bounds every request made
  // through Call. nullptr with *error on failure.
  static std::unique_ptr<CephfsMount> Open(const std::string& fs_name, uint32_t uid, uint32_t gid, int timeout_s,
                                           std::string* error);
  ~CephfsMount();  // unmounts: the client's caps go back to the MDS

  const CephfsApi& api() const { return *api_; }
  ceph_mount_info* get() const { return mount_; }
  // Makes libcephfs request `call` (its int result returned) under the bound; `op` names
  // it (a string literal). Past the bound the process ends with one error line.
  template <class Request>
  int Call(const char* op, Request&& call) {
    return watchdog_.Watch(op, call);
  }
  // Makes directory `path` and its missing parents, and gives it mode `mode` past the
  // umask. False with *error on failure.
  bool MakeDirs(const std::string& path, unsigned mode, std::string* error);
  // Counts the entries of directory `path` (without . and ..). False with *error.
  bool CountEntries(const std::string& path, uint64_t* entries, std::string* error);

 private:
  CephfsMount(const CephfsApi* api, ceph_mount_info* mount, int timeout_s)
      : api_(api), mount_(mount), watchdog_(timeout_s, "--rpc_timeout") {}
  const CephfsApi* api_;
  ceph_mount_info* mount_;
  CephfsWatchdog watchdog_;
};

}  // namespace deltameta
