// libcephfs, loaded when a CephFS client is asked for (--cephfs=1) instead of at every
// process start, as librados is (rados/rados_api.h): the tools start, and run every other
// design, on machines without it. The calls are libcephfs' C API (cephfs/libcephfs.h),
// made through pointers.
#pragma once

#include <cephfs/libcephfs.h>

#include <string>

namespace deltameta {

#define DELTAMETA_CEPHFS_CALLS(X) \
  X(ceph_closedir)                \
  X(ceph_chmod)                   \
  X(ceph_close)                   \
  X(ceph_conf_parse_env)          \
  X(ceph_conf_read_file)          \
  X(ceph_conf_set)                \
  X(ceph_create)                  \
  X(ceph_init)                    \
  X(ceph_mkdir)                   \
  X(ceph_mkdirs)                  \
  X(ceph_mknod)                   \
  X(ceph_mount)                   \
  X(ceph_mount_perms_set)         \
  X(ceph_open)                    \
  X(ceph_opendir)                 \
  X(ceph_read)                    \
  X(ceph_readdir_r)               \
  X(ceph_release)                 \
  X(ceph_rmdir)                   \
  X(ceph_select_filesystem)       \
  X(ceph_statx)                   \
  X(ceph_sync_fs)                 \
  X(ceph_unlink)                  \
  X(ceph_unmount)                 \
  X(ceph_userperm_destroy)        \
  X(ceph_userperm_new)            \
  X(ceph_write)

struct CephfsApi {
#define DELTAMETA_CEPHFS_POINTER(name) decltype(&::name) name;
  DELTAMETA_CEPHFS_CALLS(DELTAMETA_CEPHFS_POINTER)
#undef DELTAMETA_CEPHFS_POINTER
};

// Loads libcephfs once per process. nullptr with *error naming the library and the fix.
const CephfsApi* LoadLibcephfs(std::string* error);

}  // namespace deltameta
