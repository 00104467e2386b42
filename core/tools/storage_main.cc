// deltameta_storage: lists or removes a tree of stores and tables at a storage location
// (a local directory or rados://POOL/PREFIX), so that scripts can inspect and clear what
// the jobs wrote in RADOS, where no file tools reach.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "deltameta/storage.h"

namespace dm = deltameta;

namespace {

constexpr char kUsage[] =
    "usage: deltameta_storage ls URI   print the names directly below URI, one per line\n"
    "       deltameta_storage rm URI   remove URI and everything below it (nothing if missing)\n"
    "URI is a local directory or rados://POOL/PREFIX; RADOS settings come from CEPH_CONF and\n"
    "DELTAMETA_RADOS_* (see core/README.md, \"Storage\").\n";

int Fail(const std::string& message) {
  std::fprintf(stderr, "deltameta_storage: error: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const std::string command = argc == 3 ? argv[1] : "";
  if (command != "ls" && command != "rm") {
    std::fputs(kUsage, stderr);
    return 2;
  }
  dm::StorageLocation where;
  std::string error;
  if (!dm::StorageLocation::Resolve(argv[2], &where, &error)) return Fail(error);
  if (command == "rm") {
    rocksdb::Status s = where.RemoveAll();
    return s.ok() ? 0 : Fail("cannot remove " + where.uri() + ": " + s.ToString());
  }
  std::vector<std::string> names;
  rocksdb::Status s = where.ListChildren(&names);
  if (!s.ok()) return Fail("cannot list " + where.uri() + ": " + s.ToString());
  for (const std::string& name : names) std::printf("%s\n", name.c_str());
  return 0;
}
