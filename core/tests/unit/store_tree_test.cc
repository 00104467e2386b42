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
  std::string error;
  EXPECT_TRUE(StorageLocation::Resolve(path, &where, &error)) << error;
  return where;
}

void MakeStore(const std::string& dir) {
  for (const char* name : {"CURRENT", "IDENTITY", "LOCK", "LOG", "MANIFEST-000005", "OPTIONS-000007", "000004.log",
                           "000009.sst", kLayoutFileName}) {
    Touch(dir + "/" + name);
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
  std::string error;
  ASSERT_TRUE(RemoveStoreTree(At(root), true, &tree, &error)) << error;
  EXPECT_EQ(tree.stores, 3u);
  EXPECT_EQ(tree.files, 19u);
  EXPECT_TRUE(fs::exists(root)) << "a dry run removed something";
  ASSERT_TRUE(RemoveStoreTree(At(root), false, &tree, &error)) << error;
  EXPECT_FALSE(fs::exists(root));
  ASSERT_TRUE(RemoveStoreTree(At(root), false, &tree, &error)) << "a missing tree is nothing to do: " << error;
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
  std::string error;
  ASSERT_TRUE(RemoveStoreTree(At(compacted), false, &tree, &error)) << error;
  EXPECT_EQ(tree.stores, 3u);
  EXPECT_FALSE(fs::exists(compacted));
  ASSERT_TRUE(RemoveStoreTree(At(bulk), false, &tree, &error)) << error;
  EXPECT_EQ(tree.files, 2u);
  EXPECT_FALSE(fs::exists(bulk));
}

TEST(StoreTreeTest, RemovesOneStore) {
  TempDir tmp;
  MakeStore(tmp.path() + "/r0");
  StoreTree tree;
  std::string error;
  ASSERT_TRUE(RemoveStoreTree(At(tmp.path() + "/r0"), false, &tree, &error)) << error;
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
  EXPECT_FALSE(RemoveStoreTree(At(root), false, &tree, &error));
  EXPECT_NE(error.find("r0/notes.txt is not a file deltameta or RocksDB writes"), std::string::npos) << error;
  EXPECT_TRUE(fs::exists(root + "/r0/CURRENT"));

  fs::remove(root + "/r0/notes.txt");
  Touch(root + "/r0/sub/CURRENT");  // a folder inside a store
  EXPECT_FALSE(RemoveStoreTree(At(root), false, &tree, &error));
  EXPECT_TRUE(fs::exists(root + "/r0/CURRENT"));

  fs::remove_all(root + "/r0/sub");
  Touch(root + "/README");  // something beside the ranks
  EXPECT_FALSE(RemoveStoreTree(At(root), false, &tree, &error));
  EXPECT_TRUE(fs::exists(root + "/README"));

  const std::string empty = tmp.path() + "/empty";
  fs::create_directories(empty);
  EXPECT_FALSE(RemoveStoreTree(At(empty), false, &tree, &error));
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
    EXPECT_FALSE(RemoveStoreTree(At(path), false, &tree, &error)) << path;
    EXPECT_NE(error.find("it is /, the working directory or above it, or the home directory"), std::string::npos)
        << path << ": " << error;
  }
  fs::current_path(saved);
  const char* old_home = std::getenv("HOME");
  const std::string saved_home = old_home ? old_home : "";
  setenv("HOME", work.c_str(), 1);
  EXPECT_FALSE(RemoveStoreTree(At(work), false, &tree, &error));
  if (old_home)
    setenv("HOME", saved_home.c_str(), 1);
  else
    unsetenv("HOME");
  EXPECT_TRUE(fs::exists(work + "/CURRENT"));
}

}  // namespace
}  // namespace deltameta
