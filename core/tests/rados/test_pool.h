// The pool of ctest's throw-away Ceph cluster that the RADOS tests use: $CEPH_POOL, or
// "deltameta" (scripts/ceph-cluster.sh's default pool).
#pragma once

#include <cstdlib>
#include <string>

namespace deltameta {

inline std::string TestPool() {
  const char* p = std::getenv("CEPH_POOL");
  return p && *p ? p : "deltameta";
}

}  // namespace deltameta
