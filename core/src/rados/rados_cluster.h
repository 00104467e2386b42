// The process's connection to a Ceph cluster and its pools, made on first use and kept
// until exit, which then skips librados's teardown (it raced with librados's threads).
// Settings come from the environment:
//   DELTAMETA_RADOS_CONF     Ceph config file (default: $CEPH_CONF, then Ceph's own search)
//   DELTAMETA_RADOS_ID       client name without "client." (default: admin)
//   DELTAMETA_RADOS_TIMEOUT  seconds before connecting or any operation gives up (default 30)
//   DELTAMETA_RADOS_CHUNK_BYTES  object size new files are striped over (default 4 MiB)
//   DELTAMETA_RADOS_CACHE_BYTES  per pool, whole objects kept for reads (default 256 MiB; 0: none)
// CEPH_ARGS is honoured as by the ceph tools.
#pragma once

#include <string>

#include <rocksdb/env.h>

namespace deltameta {

// The Env of the RADOS file system over `pool` (see rados_fs.h), shared by every user in
// this process. Returns nullptr with *error (naming the pool or config and the fix) if the
// cluster cannot be reached within the timeout or the pool does not exist.
rocksdb::Env* RadosEnv(const std::string& pool, std::string* error);

}  // namespace deltameta
