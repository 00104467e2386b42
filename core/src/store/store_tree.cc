// Recognising and removing the trees the project made: see store_tree.h.
#include "deltameta/store_tree.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <vector>

#include "deltameta/layout.h"

namespace deltameta {
namespace {

bool IsStoreFileName(const std::string& name) {
  static const std::regex kRocksDbFile(
      R"(CURRENT|IDENTITY|LOCK|LOG(\.old\.[0-9]+)?|MANIFEST-[0-9]+|OPTIONS-[0-9]+(\.dbtmp)?|[0-9]+\.(log|sst|blob|dbtmp)|p[0-9]+-[0-9]+\.sst)");
  return name == kLayoutFileName || std::regex_match(name, kRocksDbFile);
}

// r<N>: a rank's store or table directory; staging-r<N>: the tables a compactor rank had
// not yet ingested when it stopped.
bool IsRankName(const std::string& name) { return std::regex_match(name, std::regex("(staging-)?r[0-9]+")); }

bool IsDir(const StorageLocation& where) {
  bool dir = false;
  return where.env()->IsDirectory(where.path(), &dir).ok() && dir;
}

// A store or table directory: counts its files into *tree, or says why it is not one.
bool RecognizeStoreDir(const StorageLocation& dir, bool allow_empty, StoreTree* tree, std::string* why) {
  std::vector<std::string> names;
  rocksdb::Status s = dir.ListChildren(&names);
  if (!s.ok()) {
    *why = "cannot list " + dir.uri() + ": " + s.ToString();
    return false;
  }
  for (const std::string& name : names) {
    if (!IsStoreFileName(name) || IsDir(dir.Child(name))) {
      *why = dir.Child(name).uri() + " is not a file deltameta or RocksDB writes";
      return false;
    }
  }
  if (names.empty() && !allow_empty) {
    *why = dir.uri() + " is empty";
    return false;
  }
  tree->stores += names.empty() ? 0 : 1;
  tree->files += names.size();
  return true;
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

bool RecognizeStoreTree(const StorageLocation& where, StoreTree* tree, std::string* why) {
  *tree = StoreTree();
  why->clear();
  if (!where.Exists()) return false;
  const std::string refuse = where.uri() + " is not a tree of deltameta stores: ";
  if (!where.is_rados() && IsProtectedLocalPath(where.path())) {
    *why = refuse + "it is /, the working directory or above it, or the home directory";
    return false;
  }
  if (!IsDir(where)) {
    *why = refuse + "it is a file";
    return false;
  }
  std::vector<std::string> names;
  rocksdb::Status s = where.ListChildren(&names);
  if (!s.ok()) {
    *why = "cannot list " + where.uri() + ": " + s.ToString();
    return false;
  }
  bool root = !names.empty();
  for (const std::string& name : names) root = root && IsRankName(name) && IsDir(where.Child(name));
  std::string detail;
  bool ok = true;
  if (root) {
    for (size_t i = 0; ok && i < names.size(); i++) ok = RecognizeStoreDir(where.Child(names[i]), true, tree, &detail);
  } else {
    ok = RecognizeStoreDir(where, false, tree, &detail);
  }
  if (!ok) {
    *tree = StoreTree();
    *why = refuse + detail;
  }
  return ok;
}

bool RemoveStoreTree(const StorageLocation& where, bool dry_run, StoreTree* tree, std::string* error) {
  if (!RecognizeStoreTree(where, tree, error)) return error->empty();  // missing: nothing to remove
  if (dry_run) return true;
  rocksdb::Status s = where.RemoveAll();
  if (!s.ok()) *error = "cannot remove " + where.uri() + ": " + s.ToString();
  return s.ok();
}

}  // namespace deltameta
