// deltameta_storage: lists or removes a tree of stores and tables at a storage location
// (a local directory or rados://POOL/PREFIX), so that scripts can inspect and clear what
// the jobs wrote in RADOS, where no file tools reach. It removes only trees it recognises
// as the project's (store_tree.h).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "deltameta/storage.h"
#include "deltameta/store_tree.h"
#include "util/build_info.h"

namespace dm = deltameta;

namespace {

constexpr char kUsage[] =
    "usage: deltameta_storage ls URI              print the names directly below URI, one per line\n"
    "       deltameta_storage rm [--dry-run] URI  remove the store tree at URI (nothing if missing)\n"
    "URI is a local directory or rados://POOL/PREFIX; RADOS settings come from CEPH_CONF and\n"
    "DELTAMETA_RADOS_* (see core/doc/storage.md). rm removes only what deltameta made:\n"
    "a store or table directory (RocksDB files and DELTAMETA-LAYOUT only) or a root of such\n"
    "directories named r0, r1, ...; never /, the working directory or above, or the home\n"
    "directory. It prints what it removed (--dry-run: would remove).\n";

int Fail(const std::string& message) {
  std::fprintf(stderr, "deltameta_storage: error: %s\n", message.c_str());
  return 1;
}

int Remove(const dm::StorageLocation& where, bool dry_run) {
  dm::StoreTree tree;
  const dm::Status s = dm::RemoveStoreTree(where, dry_run, &tree);
  if (!s.ok()) return Fail(s.ToString() + ": nothing was removed");
  std::printf("%s %llu files in %llu stores at %s\n", dry_run ? "would remove" : "removed",
              static_cast<unsigned long long>(tree.files), static_cast<unsigned long long>(tree.stores),
              where.uri().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::printf("%s\n%s\n", kUsage, dm::BuildLine().c_str());
    return 0;
  }
  const bool dry_run = args.size() == 3 && args[0] == "rm" && args[1] == "--dry-run";
  if (dry_run) args.erase(args.begin() + 1);
  const std::string command = args.size() == 2 ? args[0] : "";
  if (command != "ls" && command != "rm") {
    std::fputs(kUsage, stderr);
    return 2;
  }
  dm::StorageLocation where;
  const dm::Status resolved = dm::StorageLocation::Resolve(args[1], &where);
  if (!resolved.ok()) return Fail(resolved.ToString());
  if (command == "rm") return Remove(where, dry_run);
  std::vector<std::string> names;
  const dm::Status s = where.ListChildren(&names);
  if (!s.ok()) return Fail(s.WithContext("cannot list " + where.uri()).ToString());
  for (const std::string& name : names) std::printf("%s\n", name.c_str());
  return 0;
}
