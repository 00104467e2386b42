// Recognising and removing the trees the project made: see store_tree.h.
#include "deltameta/store_tree.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <vector>

#include "deltameta/layout.h"
#include "util/name_scanner.h"

namespace deltameta {
namespace {

// What RocksDB writes in a store: CURRENT, IDENTITY, LOCK, LOG, LOG.old.<N>, MANIFEST-<N>,
// OPTIONS-<N>[.dbtmp], <N>.log|sst|blob|dbtmp; and bulk insertion's p<N>-<N>.sst tables.
bool IsRocksDbFileName(std::string_view name) {
  if (name == "CURRENT" || name == "IDENTITY" || name == "LOCK" || name == "LOG") return true;
  NameScanner old_log(name), manifest(name), options(name), numbered(name), table(name);
  return (old_log.Literal("LOG.old.") && old_log.Digits() && old_log.AtEnd()) ||
         (manifest.Literal("MANIFEST-") && manifest.Digits() && manifest.AtEnd()) ||
         (options.Literal("OPTIONS-") && options.Digits() && options.RestIs({"", ".dbtmp"})) ||
         (numbered.Digits() && numbered.RestIs({".log", ".sst", ".blob", ".dbtmp"})) ||
         (table.Literal("p") && table.Digits() && table.Literal("-") && table.Digits() && table.RestIs({".sst"}));
}

bool IsStoreFileName(const std::string& name) { return name == kLayoutFileName || IsRocksDbFileName(name); }

// r<N>: a rank's store or table directory; staging-r<N>: the tables a compactor rank had
// not yet ingested when it stopped.
bool IsRankName(const std::string& name) {
  NameScanner rank(name);
  rank.Literal("staging-");
  return rank.Literal("r") && rank.Digits() && rank.AtEnd();
}

bool IsDir(const StorageLocation& where) {
  bool dir = false;
  return where.env()->IsDirectory(where.path(), &dir).ok() && dir;
}

// A store or table directory: counts its files into *tree, or says why it is not one.
Status RecognizeStoreDir(const StorageLocation& dir, bool allow_empty, StoreTree* tree) {
  std::vector<std::string> names;
  Status s = dir.ListChildren(&names);
  if (!s.ok()) return s.WithContext("cannot list " + dir.uri());
  for (const std::string& name : names) {
    if (!IsStoreFileName(name) || IsDir(dir.Child(name))) {
      return Status::InvalidArgument(dir.Child(name).uri() + " is not a file deltameta or RocksDB writes");
    }
  }
  if (names.empty() && !allow_empty) return Status::InvalidArgument(dir.uri() + " is empty");
  tree->stores += names.empty() ? 0 : 1;
  tree->files += names.size();
  return Status::OK();
}

// `path` is `/`, the working directory or above it, or the home directory.
bool IsProtectedLocalPath(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(path, ec);
  if (ec || target == target.root_path()) return true;
  const fs::path cwd = fs::current_path(ec);
  if (!ec) {
    auto t = target.begin();
    auto c = cwd.begin();
    while (t != target.end() && c != cwd.end() && *t == *c) ++t, ++c;
    if (t == target.end()) return true;  // target is cwd or one of its ancestors
  }
  const char* home = std::getenv("HOME");
  return home != nullptr && fs::weakly_canonical(home, ec) == target;
}

}  // namespace

Status RecognizeStoreTree(const StorageLocation& where, StoreTree* tree) {
  *tree = StoreTree();
  Status s = where.Exists();
  if (!s.ok()) return s;
  const std::string refuse = where.uri() + " is not a tree of deltameta stores";
  if (!where.is_rados() && IsProtectedLocalPath(where.path())) {
    return Status::InvalidArgument(refuse + ": it is /, the working directory or above it, or the home directory");
  }
  if (!IsDir(where)) return Status::InvalidArgument(refuse + ": it is a file");
  std::vector<std::string> names;
  s = where.ListChildren(&names);
  if (!s.ok()) return s.WithContext("cannot list " + where.uri());
  bool root = !names.empty();
  for (const std::string& name : names) root = root && IsRankName(name) && IsDir(where.Child(name));
  if (root) {
    for (size_t i = 0; s.ok() && i < names.size(); i++) s = RecognizeStoreDir(where.Child(names[i]), true, tree);
  } else {
    s = RecognizeStoreDir(where, false, tree);
  }
  if (!s.ok()) *tree = StoreTree();
  return s.WithContext(refuse);
}

Status RemoveStoreTree(const StorageLocation& where, bool dry_run, StoreTree* tree) {
  Status s = RecognizeStoreTree(where, tree);
  if (s.IsNotFound()) return Status::OK();  // missing: nothing to remove
  if (!s.ok() || dry_run) return s;
  return where.RemoveAll().WithContext("cannot remove " + where.uri());
}

}  // namespace deltameta
