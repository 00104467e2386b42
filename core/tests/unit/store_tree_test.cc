// Tests store_tree.h: only trees deltameta made are recognised and removed; everything else
// (foreign files, subfolders, /, the working directory and above, the home directory) is
// refused and left as it was.
#include "deltameta/store_tree.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "deltameta/layout.h"
#include "temp_dir.h"

namespace deltameta {
namespace {

namespace fs = std::filesystem;

void Touch(const std::string& path) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << "x";
}

StorageLocation At(const std::string& path) {
  StorageLocation where;
  const Status s = StorageLocation::Resolve(path, &where);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return where;
}

// Removes the tree at `path` (with dry_run: counts it): "" if it did, else why not.
std::string Remove(const std::string& path, bool dry_run, StoreTree* tree) {
  const Status s = RemoveStoreTree(At(path), dry_run, tree);
  return s.ok() ? "" : s.ToString();
}

void MakeStore(const std::string& dir) {
  for (const char* name : {"CURRENT", "IDENTITY", "LOCK", "LOG", "MANIFEST-000005", "OPTIONS-000007", "000004.log",
                           "000009.sst", kLayoutFileName}) {
    Touch(dir + "/" + name);
  }
}

TEST(StoreTreeTest, KnowsEveryNameRocksDbWritesAndNoNearMiss) {
  TempDir tmp;
  StoreTree tree;
  for (const char* name :
       {"LOG.old.1764300000123456", "OPTIONS-000011.dbtmp", "000013.blob", "000014.dbtmp", "p3-000002.sst"}) {
    const std::string store = tmp.path() + "/ok-" + name + "/r0";
    MakeStore(store);
    Touch(store + "/" + name);
    EXPECT_EQ(Remove(tmp.path() + "/ok-" + name, true, &tree), "") << name;
  }
  for (const char* name : {"LOG.old.", "LOG.old", "LOGS", "MANIFEST-", "MANIFEST-5x", "OPTIONS-7.tmp", "12.txt",
                           "12.sst.bak", ".sst", "p1-.sst", "p-000001.sst", "px-000001.sst", "CURRENT~"}) {
    const std::string store = tmp.path() + "/near-" + name + "/r0";
    MakeStore(store);
    Touch(store + "/" + name);
    EXPECT_NE(Remove(tmp.path() + "/near-" + name, false, &tree).find("is not a file deltameta or RocksDB writes"),
              std::string::npos)
        << name;
    EXPECT_TRUE(fs::exists(store + "/" + name)) << name << " was removed";
  }
  for (const char* dir : {"r", "rx", "staging-", "staging-r", "staging-rr1", "xr1"}) {
    const std::string root = tmp.path() + "/dir-" + dir;
    MakeStore(root + "/r0");
    MakeStore(root + "/" + dir);
    EXPECT_NE(Remove(root, false, &tree), "") << dir << " was taken for a rank's directory";
    EXPECT_TRUE(fs::exists(root + "/" + dir)) << dir;
  }
}

TEST(StoreTreeTest, RemovesAStoreRootAndCountsIt) {
  TempDir tmp;
  const std::string root = tmp.path() + "/svr";
  MakeStore(root + "/r0");
  MakeStore(root + "/r1");
  Touch(root + "/r2/000012.sst");  // a bulk-insertion table directory
  fs::create_directories(root + "/r3");
  StoreTree tree;
  ASSERT_EQ(Remove(root, true, &tree), "");
  EXPECT_EQ(tree.stores, 3u);
  EXPECT_EQ(tree.files, 19u);
  EXPECT_TRUE(fs::exists(root)) << "a dry run removed something";
  ASSERT_EQ(Remove(root, false, &tree), "");
  EXPECT_FALSE(fs::exists(root));
  ASSERT_EQ(Remove(root, false, &tree), "") << "a missing tree is nothing to do";
  EXPECT_EQ(tree.files, 0u);
}

TEST(StoreTreeTest, RemovesWhatAStoppedJobLeft) {
  // A compaction stopped before it ingested (its staging-r<N> tables beside the stores),
  // and a bulk-insertion client stopped before its commit (its p<N>-NNNNNN.sst tables).
  TempDir tmp;
  const std::string compacted = tmp.path() + "/compacted";
  MakeStore(compacted + "/r0");
  Touch(compacted + "/staging-r0/000001.sst");
  Touch(compacted + "/staging-r1/000003.sst");
  const std::string bulk = tmp.path() + "/cli";
  Touch(bulk + "/r0/p0-000001.sst");
  Touch(bulk + "/r0/p1-000001.sst");
  StoreTree tree;
  ASSERT_EQ(Remove(compacted, false, &tree), "");
  EXPECT_EQ(tree.stores, 3u);
  EXPECT_FALSE(fs::exists(compacted));
  ASSERT_EQ(Remove(bulk, false, &tree), "");
  EXPECT_EQ(tree.files, 2u);
  EXPECT_FALSE(fs::exists(bulk));
}

TEST(StoreTreeTest, RemovesOneStore) {
  TempDir tmp;
  MakeStore(tmp.path() + "/r0");
  StoreTree tree;
  ASSERT_EQ(Remove(tmp.path() + "/r0", false, &tree), "");
  EXPECT_EQ(tree.stores, 1u);
  EXPECT_FALSE(fs::exists(tmp.path() + "/r0"));
}

TEST(StoreTreeTest, RefusesTreesWithAnythingElse) {
  TempDir tmp;
  const std::string root = tmp.path() + "/svr";
  MakeStore(root + "/r0");
  Touch(root + "/r0/notes.txt");
  StoreTree tree;
  std::string error;
  error = Remove(root, false, &tree);
  EXPECT_NE(error, "");
  EXPECT_NE(error.find("r0/notes.txt is not a file deltameta or RocksDB writes"), std::string::npos) << error;
  EXPECT_TRUE(fs::exists(root + "/r0/CURRENT"));

  fs::remove(root + "/r0/notes.txt");
  Touch(root + "/r0/sub/CURRENT");  // a folder inside a store
  error = Remove(root, false, &tree);
  EXPECT_NE(error, "");
  EXPECT_TRUE(fs::exists(root + "/r0/CURRENT"));

  fs::remove_all(root + "/r0/sub");
  Touch(root + "/README");  // something beside the ranks
  error = Remove(root, false, &tree);
  EXPECT_NE(error, "");
  EXPECT_TRUE(fs::exists(root + "/README"));

  const std::string empty = tmp.path() + "/empty";
  fs::create_directories(empty);
  error = Remove(empty, false, &tree);
  EXPECT_NE(error, "");
  EXPECT_NE(error.find("is empty"), std::string::npos) << error;
  EXPECT_TRUE(fs::exists(empty));
}

TEST(StoreTreeTest, NeverRootWorkingDirectoryOrHome) {
  TempDir tmp;
  const std::string work = tmp.path() + "/work";
  MakeStore(work);  // even a folder that looks like a store
  const fs::path saved = fs::current_path();
  fs::current_path(work);
  StoreTree tree;
  std::string error;
  for (const std::string& path : {std::string("/"), std::string("."), work, tmp.path()}) {
    error = Remove(path, false, &tree);
    EXPECT_NE(error, "") << path;
    EXPECT_NE(error.find("it is /, the working directory or above it, or the home directory"), std::string::npos)
        << path << ": " << error;
  }
  fs::current_path(saved);
  const char* old_home = std::getenv("HOME");
  const std::string saved_home = old_home ? old_home : "";
  setenv("HOME", work.c_str(), 1);
  error = Remove(work, false, &tree);
  EXPECT_NE(error, "");
  if (old_home)
    setenv("HOME", saved_home.c_str(), 1);
  else
    unsetenv("HOME");
  EXPECT_TRUE(fs::exists(work + "/CURRENT"));
}

}  // namespace
}  // namespace deltameta
