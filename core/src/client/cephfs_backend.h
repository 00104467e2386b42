// The CephFS backend of the benchmark client (--cephfs=1; client_backend.h has the
// interface): the production baseline of issue 36 (core/doc/cephfs.md). Every create is
// a mknod and every lstat a statx (AT_SYMLINK_NOFOLLOW) through this rank's libcephfs
// mount, as the user and group the workload expects of the rank's files (Workload::StatFor); the MDS
// serves them (or the client's cache, while the rank holds the inode's capabilities).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "client/client_backend.h"
#include "client/client_flags.h"
#include "client/workload.h"

namespace deltameta {

// Rank 0, before any rank opens its backend: makes the run's directories (--cephfs_dir,
// and without --share_dir its r<rank> subdirectories) with mode 0777 so that every rank's
// user may create in them. False with *error on failure.
bool PrepareCephfsDirs(const ClientFlags& flags, uint32_t ranks, std::string* error);

// This rank's mount. nullptr with *error on failure (libcephfs missing, no cluster or MDS).
std::unique_ptr<ClientBackend> OpenCephfsBackend(const ClientFlags& flags, const Workload& work, std::string* error);

}  // namespace deltameta
