// Tests of the RADOS file system (rados_fs.h) against a real Ceph cluster: every file
// system operation RocksDB uses, rename and link without data copies, listing from a
// second process, a RocksDB store with bulk ingestion, and the errors users can meet.
// ctest starts a throw-away cluster (scripts/ceph-cluster.sh) and sets CEPH_CONF; the pool
// is $CEPH_POOL or "deltameta". The second process is the deltameta_storage tool.
#include "rados/rados_fs.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>

#include <gtest/gtest.h>
#include <rados/librados.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include "deltameta/storage.h"
#include "deltameta/store.h"
#include "store/table_writer.h"
#include "test_pool.h"

namespace deltameta {
namespace {

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// The objects in the pool, read with librados directly (not through the file system).
class PoolObjects {
 public:
  PoolObjects() {
    EXPECT_EQ(rados_create(&cluster_, nullptr), 0);
    EXPECT_EQ(rados_conf_read_file(cluster_, nullptr), 0);
    EXPECT_EQ(rados_connect(cluster_), 0);
    EXPECT_EQ(rados_ioctx_create(cluster_, TestPool().c_str(), &io_), 0);
  }
  ~PoolObjects() {
    rados_ioctx_destroy(io_);
    rados_shutdown(cluster_);
  }
  std::set<std::string> Names() {
    std::set<std::string> names;
    rados_list_ctx_t ctx;
    EXPECT_EQ(rados_nobjects_list_open(io_, &ctx), 0);
    const char* entry = nullptr;
    while (rados_nobjects_list_next(ctx, &entry, nullptr, nullptr) == 0) names.insert(entry);
    rados_nobjects_list_close(ctx);
    return names;
  }
  rados_ioctx_t io() const { return io_; }

 private:
  rados_t cluster_ = nullptr;
  rados_ioctx_t io_ = nullptr;
};

class RadosFsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string uri = "rados://" + TestPool() + "/" +
                            ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" +
                            std::to_string(getpid());
    const Status s = StorageLocation::Resolve(uri, &root_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(root_.CreateDirs().ok());
    env_ = root_.env();
  }
  void TearDown() override { EXPECT_TRUE(root_.RemoveAll().ok()); }

  std::string P(const std::string& name) const { return root_.Child(name).path(); }

  void WriteFile(const std::string& name, const std::string& data, size_t piece = 5000) {
    std::unique_ptr<rocksdb::WritableFile> f;
    ASSERT_TRUE(env_->NewWritableFile(P(name), &f, rocksdb::EnvOptions()).ok());
    for (size_t i = 0; i < data.size(); i += piece) {
      ASSERT_TRUE(f->Append(rocksdb::Slice(data.data() + i, std::min(piece, data.size() - i))).ok());
      if (i % (piece * 3) == 0) {
        ASSERT_TRUE(f->Flush().ok());
      }
    }
    ASSERT_TRUE(f->Close().ok());
  }

  std::string ReadFile(const std::string& name) {
    std::string data;
    rocksdb::Status s = rocksdb::ReadFileToString(env_, P(name), &data);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return data;
  }

  std::vector<std::string> Children(const std::string& name) {
    std::vector<std::string> names;
    EXPECT_TRUE(root_.Child(name).ListChildren(&names).ok());
    return names;
  }

  StorageLocation root_;
  rocksdb::Env* env_ = nullptr;
};

TEST_F(RadosFsTest, FilesSpanManyObjectsAndReadBackExactly) {
  const std::string data = RandomBytes(300000, 1);  // 74 objects of 4 KiB (ctest sets the chunk size)
  WriteFile("f", data, 7001);
  uint64_t size = 0;
  ASSERT_TRUE(env_->GetFileSize(P("f"), &size).ok());
  EXPECT_EQ(size, data.size());
  EXPECT_EQ(ReadFile("f"), data);

  std::unique_ptr<rocksdb::RandomAccessFile> r;
  ASSERT_TRUE(env_->NewRandomAccessFile(P("f"), &r, rocksdb::EnvOptions()).ok());
  std::mt19937 rng(2);
  std::string scratch(40000, '\0');
  for (int i = 0; i < 200; i++) {
    const size_t off = rng() % data.size(), n = rng() % scratch.size();
    rocksdb::Slice got;
    ASSERT_TRUE(r->Read(off, n, &got, scratch.data()).ok());
    ASSERT_EQ(got.ToString(), data.substr(off, n)) << off << "+" << n;
  }
  rocksdb::Slice past;
  ASSERT_TRUE(r->Read(data.size() + 10, 100, &past, scratch.data()).ok());
  EXPECT_EQ(past.size(), 0u);

  std::unique_ptr<rocksdb::SequentialFile> seq;
  ASSERT_TRUE(env_->NewSequentialFile(P("f"), &seq, rocksdb::EnvOptions()).ok());
  ASSERT_TRUE(seq->Skip(1000).ok());
  rocksdb::Slice got;
  ASSERT_TRUE(seq->Read(5000, &got, scratch.data()).ok());
  EXPECT_EQ(got.ToString(), data.substr(1000, 5000));
}

TEST_F(RadosFsTest, ReopenedFileAppendsAtTheEnd) {
  WriteFile("log", "first;");
  EXPECT_EQ(ReadFile("log"), "first;");  // caches the short object, which must not hide the append
  std::unique_ptr<rocksdb::WritableFile> f;
  ASSERT_TRUE(env_->ReopenWritableFile(P("log"), &f, rocksdb::EnvOptions()).ok());
  ASSERT_TRUE(f->Append("second").ok());
  ASSERT_TRUE(f->Close().ok());
  EXPECT_EQ(ReadFile("log"), "first;second");
}

TEST_F(RadosFsTest, RepeatedReadsAreServedFromTheObjectCache) {
  PoolObjects pool;
  const std::set<std::string> before = pool.Names();
  const std::string data = RandomBytes(10000, 7);
  WriteFile("cached", data);
  EXPECT_EQ(ReadFile("cached"), data);
  int removed = 0;
  for (const std::string& name : pool.Names()) {
    if (!before.count(name) && name.compare(name.size() - 2, 2, ".1") == 0) {
      ASSERT_EQ(rados_remove(pool.io(), name.c_str()), 0);
      removed++;
    }
  }
  ASSERT_EQ(removed, 1);
  EXPECT_EQ(ReadFile("cached"), data) << "the second read must not go to RADOS";
}

TEST_F(RadosFsTest, TheObjectCacheKeepsWholeObjectsUpToItsSize) {
  // 1 MiB objects under an 8 MiB cache: all four of a file's objects must stay. (RocksDB's
  // LRU cache split 8 MiB into 16 shards of 512 KiB, none of which kept a whole object:
  // every read went to RADOS again.)
  PoolObjects pool;
  std::unique_ptr<rocksdb::Env> env =
      rocksdb::NewCompositeEnv(NewRadosFileSystem(pool.io(), TestPool(), 1 << 20, 8 << 20));
  const std::set<std::string> before = pool.Names();
  const std::string data = RandomBytes(4 << 20, 9);
  ASSERT_TRUE(rocksdb::WriteStringToFile(env.get(), data, P("four-objects")).ok());
  std::string got;
  ASSERT_TRUE(rocksdb::ReadFileToString(env.get(), P("four-objects"), &got).ok());
  ASSERT_TRUE(got == data);
  std::string id;
  for (const std::string& name : pool.Names()) {
    if (!before.count(name) && name.size() > 2 && name.compare(name.size() - 2, 2, ".1") == 0)
      id = name.substr(0, name.size() - 2);
  }
  ASSERT_FALSE(id.empty());
  for (const char* chunk : {".1", ".2", ".3"}) ASSERT_EQ(rados_remove(pool.io(), (id + chunk).c_str()), 0) << chunk;
  got.clear();
  rocksdb::Status s = rocksdb::ReadFileToString(env.get(), P("four-objects"), &got);
  EXPECT_TRUE(s.ok()) << s.ToString() << ": the second read must not go to RADOS";
  EXPECT_TRUE(got == data);
}

TEST_F(RadosFsTest, DirectoriesListCreateAndDelete) {
  ASSERT_TRUE(env_->CreateDir(P("a")).ok());
  EXPECT_FALSE(env_->CreateDir(P("a")).ok());
  EXPECT_TRUE(env_->CreateDirIfMissing(P("a")).ok());
  EXPECT_FALSE(env_->CreateDir(P("missing/b")).ok());
  WriteFile("a/y", "yy");
  WriteFile("a/x", "x");
  ASSERT_TRUE(env_->CreateDir(P("a/s")).ok());
  EXPECT_EQ(Children("a"), (std::vector<std::string>{"s", "x", "y"}));
  bool is_dir = false;
  ASSERT_TRUE(env_->IsDirectory(P("a/s"), &is_dir).ok());
  EXPECT_TRUE(is_dir);
  ASSERT_TRUE(env_->IsDirectory(P("a/x"), &is_dir).ok());
  EXPECT_FALSE(is_dir);
  EXPECT_TRUE(env_->FileExists(P("a/x")).ok());
  EXPECT_TRUE(env_->FileExists(P("a/z")).IsNotFound());
  EXPECT_FALSE(env_->DeleteDir(P("a")).ok()) << "a directory with entries must not be deleted";
  ASSERT_TRUE(env_->DeleteFile(P("a/x")).ok());
  EXPECT_FALSE(env_->DeleteFile(P("a/x")).ok());
  EXPECT_EQ(Children("a"), (std::vector<std::string>{"s", "y"}));
}

TEST_F(RadosFsTest, ListingPagesThroughLargeDirectories) {
  std::vector<std::string> expected;
  for (int i = 0; i < 1234; i++) {
    char name[16];
    std::snprintf(name, sizeof(name), "n%05d", i);
    expected.push_back(name);
    ASSERT_TRUE(env_->CreateDir(P(name)).ok());
  }
  EXPECT_EQ(Children(""), expected);
}

TEST_F(RadosFsTest, RenameMovesNamesNotData) {
  const std::string data = RandomBytes(50000, 3);
  ASSERT_TRUE(env_->CreateDir(P("d1")).ok());
  ASSERT_TRUE(env_->CreateDir(P("d2")).ok());
  WriteFile("d1/a", data);
  PoolObjects pool;
  const std::set<std::string> before = pool.Names();
  ASSERT_TRUE(env_->RenameFile(P("d1/a"), P("d1/b")).ok());
  ASSERT_TRUE(env_->RenameFile(P("d1/b"), P("d2/c")).ok());
  EXPECT_EQ(pool.Names(), before) << "a rename must not write or remove data objects";
  EXPECT_TRUE(env_->FileExists(P("d1/a")).IsNotFound());
  EXPECT_TRUE(env_->FileExists(P("d1/b")).IsNotFound());
  EXPECT_EQ(ReadFile("d2/c"), data);

  WriteFile("d2/old", RandomBytes(20000, 4));
  const std::set<std::string> with_old = pool.Names();
  ASSERT_TRUE(env_->RenameFile(P("d2/c"), P("d2/old")).ok());
  EXPECT_EQ(ReadFile("d2/old"), data);
  EXPECT_EQ(with_old.size() - pool.Names().size(), 5u) << "the replaced file's 5 data objects are removed";
}

TEST_F(RadosFsTest, LinksShareDataWhichGoesWithTheLastName) {
  PoolObjects pool;
  const std::set<std::string> empty = pool.Names();
  const std::string data = RandomBytes(30000, 5);
  WriteFile("t.sst", data);
  const std::set<std::string> written = pool.Names();
  ASSERT_TRUE(env_->CreateDir(P("db")).ok());
  ASSERT_TRUE(env_->LinkFile(P("t.sst"), P("db/1.sst")).ok());
  EXPECT_EQ(pool.Names().size(), written.size() + 1) << "a link adds only the directory's object";
  EXPECT_FALSE(env_->LinkFile(P("t.sst"), P("db/1.sst")).ok()) << "a link must not replace a file";
  uint64_t links = 0;
  ASSERT_TRUE(env_->GetFileSystem()->NumFileLinks(P("t.sst"), rocksdb::IOOptions(), &links, nullptr).ok());
  EXPECT_EQ(links, 2u);
  bool same = false;
  ASSERT_TRUE(env_->AreFilesSame(P("t.sst"), P("db/1.sst"), &same).ok());
  EXPECT_TRUE(same);
  ASSERT_TRUE(env_->DeleteFile(P("t.sst")).ok());
  EXPECT_EQ(ReadFile("db/1.sst"), data);
  ASSERT_TRUE(env_->DeleteFile(P("db/1.sst")).ok());
  std::set<std::string> left = pool.Names();
  left.erase("dir:" + P("db"));
  EXPECT_EQ(left, empty) << "the data objects go with the last name";
}

TEST_F(RadosFsTest, LocksAreExclusive) {
  rocksdb::FileLock* lock = nullptr;
  ASSERT_TRUE(env_->LockFile(P("LOCK"), &lock).ok());
  rocksdb::FileLock* second = nullptr;
  rocksdb::Status s = env_->LockFile(P("LOCK"), &second);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("held by another process"), std::string::npos) << s.ToString();
  ASSERT_TRUE(env_->UnlockFile(lock).ok());
  ASSERT_TRUE(env_->LockFile(P("LOCK"), &second).ok());
  ASSERT_TRUE(env_->UnlockFile(second).ok());
}

TEST_F(RadosFsTest, AnotherProcessSeesTheTree) {
  ASSERT_TRUE(env_->CreateDir(P("shared")).ok());
  WriteFile("shared/000001.sst", "1");
  WriteFile("shared/CURRENT", "2");
  const std::string out = "/tmp/deltameta-rados-list-" + std::to_string(getpid());
  const std::string command = std::string(STORAGE_TOOL) + " ls " + root_.Child("shared").uri() + " > " + out;
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::string listed;
  ASSERT_TRUE(rocksdb::ReadFileToString(rocksdb::Env::Default(), out, &listed).ok());
  std::remove(out.c_str());
  EXPECT_EQ(listed, "000001.sst\nCURRENT\n");
  ASSERT_EQ(std::system((std::string(STORAGE_TOOL) + " rm " + root_.Child("shared").uri()).c_str()), 0);
  EXPECT_TRUE(env_->FileExists(P("shared")).IsNotFound());
  // What deltameta did not write stays.
  ASSERT_TRUE(env_->CreateDir(P("foreign")).ok());
  WriteFile("foreign/notes", "mine");
  EXPECT_NE(std::system((std::string(STORAGE_TOOL) + " rm " + root_.Child("foreign").uri() + " 2>/dev/null").c_str()),
            0);
  EXPECT_TRUE(env_->FileExists(P("foreign/notes")).ok());
}

TEST_F(RadosFsTest, StoreWithIngestedTablesLivesInRados) {
  StoreOptions options;
  options.table_size = 64 << 10;
  const StorageLocation tables = root_.Child("tables");
  ASSERT_TRUE(tables.CreateDirs().ok());
  std::vector<std::string> uris;
  TableWriter writer(options, tables, "p0-");
  for (int i = 0; i < 20000; i++) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%08d", i);
    ASSERT_TRUE(writer.Add(key, RandomBytes(40, i)).ok());
  }
  ASSERT_TRUE(writer.Finish(&uris).ok());
  ASSERT_GE(uris.size(), 2u);
  EXPECT_EQ(uris[0], tables.uri() + "/p0-000001.sst");

  const std::string store_uri = root_.Child("r0").uri();
  {
    std::unique_ptr<Store> store;
    const Status opened = Store::Open(store_uri, Store::Mode::kCreate, options, StoreLayout(), &store);
    ASSERT_TRUE(opened.ok()) << opened.ToString();
    ASSERT_TRUE(store->Put("direct", FileStat{}).ok());
    Status s = store->Ingest(uris);
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = store->Close();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  EXPECT_TRUE(Children("tables").empty()) << "ingestion moves the tables";
  std::unique_ptr<Store> store;
  const Status opened = Store::Open(store_uri, Store::Mode::kReadOnly, options, StoreLayout(), &store);
  ASSERT_TRUE(opened.ok()) << opened.ToString();
  uint64_t entries = 0;
  ASSERT_TRUE(store->CountEntries(&entries).ok());
  EXPECT_EQ(entries, 20001u);
  std::string value;
  ASSERT_TRUE(store->Get("k00012345", &value).ok());
  EXPECT_EQ(value, RandomBytes(40, 12345));
  EXPECT_NE(store->location().uri().find("rados://"), std::string::npos);
}

TEST_F(RadosFsTest, ErrorsNameTheProblem) {
  StorageLocation where;
  std::string error = StorageLocation::Resolve("rados://no-such-pool/x", &where).ToString();
  EXPECT_NE(error.find("pool 'no-such-pool' does not exist"), std::string::npos) << error;
  error = StorageLocation::Resolve("rados:///x", &where).ToString();
  EXPECT_NE(error.find("names no pool"), std::string::npos) << error;
  error = StorageLocation::Resolve("s3://bucket/x", &where).ToString();
  EXPECT_NE(error.find("unknown scheme"), std::string::npos) << error;

  PoolObjects pool;
  const std::set<std::string> before = pool.Names();
  WriteFile("victim", RandomBytes(20000, 6));
  std::string object;
  for (const std::string& name : pool.Names()) {
    if (!before.count(name) && name.size() > 2 && name.compare(name.size() - 2, 2, ".2") == 0) object = name;
  }
  ASSERT_FALSE(object.empty());
  ASSERT_EQ(rados_remove(pool.io(), object.c_str()), 0);
  std::string data;
  rocksdb::Status s = rocksdb::ReadFileToString(env_, P("victim"), &data);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("missing RADOS object " + TestPool() + "/" + object), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace deltameta

int main(int argc, char** argv) {
  // Small objects, so that every file (RocksDB's too) is striped over many of them.
  setenv("DELTAMETA_RADOS_CHUNK_BYTES", "4096", 0);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
