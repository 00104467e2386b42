// Tests secret.h: the secret file is made once (mode 0600 in a 0700 directory, atomically,
// so that servers starting together agree), and a file others could read, another user's
// file or one of the wrong size is refused with a line saying how to fix it.
#include "rpc/secret.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace deltameta {
namespace {

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

std::vector<std::string> Listing(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
  }
  return names;
}

void WriteFile(const std::string& path, const std::string& data, mode_t mode) {
  std::ofstream(path, std::ios::binary) << data;
  ASSERT_EQ(chmod(path.c_str(), mode), 0);
}

// Sets an environment variable for one scope, restoring what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old, had_ = true;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(SecretTest, MadeOnceWithPrivateModes) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/dot", path = dir + "/secret";
  std::string first, second, error;
  bool created = false;
  ASSERT_TRUE(ReadOrCreateSecret(path, &first, &created, &error)) << error;
  EXPECT_TRUE(created);
  EXPECT_EQ(first.size(), kSecretBytes);
  EXPECT_EQ(ModeOf(path), 0600u);
  EXPECT_EQ(ModeOf(dir), 0700u);
  EXPECT_EQ(Listing(dir), std::vector<std::string>{"secret"});  // no temporary left behind
  ASSERT_TRUE(ReadOrCreateSecret(path, &second, &created, &error)) << error;
  EXPECT_FALSE(created);
  EXPECT_EQ(second, first);
  ASSERT_TRUE(ReadSecret(path, &second, &error)) << error;
  EXPECT_EQ(second, first);
  // Random: another file gets another secret.
  ASSERT_TRUE(ReadOrCreateSecret(dir + "/other", &second, &created, &error)) << error;
  EXPECT_NE(second, first);
}

TEST(SecretTest, AClientWithoutTheFileNamesIt) {
  TempDir tmp;
  const std::string path = tmp.path() + "/secret";
  std::string secret, error;
  EXPECT_FALSE(ReadSecret(path, &secret, &error));
  EXPECT_EQ(error.find("no secret file " + path + ":"), 0u) << error;
  EXPECT_NE(error.find("DELTAMETA_SECRET_FILE"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
  EXPECT_TRUE(Listing(tmp.path()).empty());  // a client never makes one
}

TEST(SecretTest, RefusesAFileOthersMayReadOrWrite) {
  TempDir tmp;
  const std::string path = tmp.path() + "/secret";
  for (mode_t mode : {0640, 0604, 0620, 0602, 0660, 0644, 0666}) {
    WriteFile(path, std::string(kSecretBytes, 'k'), mode);
    std::string secret, error;
    EXPECT_FALSE(ReadSecret(path, &secret, &error)) << std::oct << mode;
    EXPECT_NE(error.find("chmod 600 " + path), std::string::npos) << error;
    EXPECT_FALSE(ReadOrCreateSecret(path, &secret, nullptr, &error)) << std::oct << mode;
    EXPECT_NE(error.find("chmod 600 " + path), std::string::npos) << error;
  }
  for (mode_t mode : {0600, 0400}) {
    WriteFile(path, std::string(kSecretBytes, 'k'), mode);
    std::string secret, error;
    EXPECT_TRUE(ReadSecret(path, &secret, &error)) << std::oct << mode << ": " << error;
    EXPECT_EQ(secret, std::string(kSecretBytes, 'k'));
  }
}

TEST(SecretTest, RefusesAnotherUsersFile) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a file away";
  TempDir tmp;
  const std::string path = tmp.path() + "/secret";
  WriteFile(path, std::string(kSecretBytes, 'k'), 0600);
  ASSERT_EQ(chown(path.c_str(), 12345, 12345), 0);
  std::string secret, error;
  EXPECT_FALSE(ReadSecret(path, &secret, &error));
  EXPECT_NE(error.find("belongs to uid 12345, not to this user"), std::string::npos) << error;
  EXPECT_FALSE(ReadOrCreateSecret(path, &secret, nullptr, &error));
  EXPECT_NE(error.find("belongs to uid 12345"), std::string::npos) << error;
}

TEST(SecretTest, RefusesAFileOfTheWrongSizeOrKind) {
  TempDir tmp;
  const std::string path = tmp.path() + "/secret";
  std::string secret, error;
  for (size_t size : {size_t{0}, kSecretBytes - 1, kSecretBytes + 1}) {
    WriteFile(path, std::string(size, 'k'), 0600);
    EXPECT_FALSE(ReadOrCreateSecret(path, &secret, nullptr, &error)) << size;
    EXPECT_NE(error.find("holds " + std::to_string(size) + " bytes"), std::string::npos) << error;
  }
  ASSERT_EQ(unlink(path.c_str()), 0);
  ASSERT_EQ(mkdir(path.c_str(), 0700), 0);
  EXPECT_FALSE(ReadOrCreateSecret(path, &secret, nullptr, &error));
  EXPECT_NE(error.find("is not a regular file"), std::string::npos) << error;
}

TEST(SecretTest, ServersStartingTogetherEndWithOneSecret) {
  constexpr int kProcesses = 12;
  for (int round = 0; round < 5; round++) {
    TempDir tmp;
    const std::string dir = tmp.path() + "/dot", path = dir + "/secret";
    int go[2], results[2];
    ASSERT_EQ(pipe(go), 0);
    ASSERT_EQ(pipe(results), 0);
    std::vector<pid_t> children;
    for (int i = 0; i < kProcesses; i++) {
      pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        close(go[1]);
        char c;
        if (read(go[0], &c, 1) != 0) _exit(3);  // wait until the parent lets every child go at once
        std::string secret, error;
        bool created = false;
        if (!ReadOrCreateSecret(path, &secret, &created, &error)) _exit(2);
        std::string record = secret + (created ? "1" : "0");
        _exit(write(results[1], record.data(), record.size()) == static_cast<ssize_t>(record.size()) ? 0 : 4);
      }
      children.push_back(pid);
    }
    close(go[0]);
    close(go[1]);  // all children wake together
    close(results[1]);
    for (pid_t pid : children) {
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    }
    std::set<std::string> secrets;
    int made = 0;
    char record[kSecretBytes + 1];
    for (int i = 0; i < kProcesses; i++) {
      size_t got = 0;
      while (got < sizeof(record)) {
        ssize_t n = read(results[0], record + got, sizeof(record) - got);
        ASSERT_GT(n, 0);
        got += static_cast<size_t>(n);
      }
      secrets.insert(std::string(record, kSecretBytes));
      made += record[kSecretBytes] == '1';
    }
    close(results[0]);
    EXPECT_EQ(secrets.size(), 1u) << "round " << round;
    EXPECT_EQ(made, 1) << "round " << round;
    std::string on_disk, error;
    ASSERT_TRUE(ReadSecret(path, &on_disk, &error)) << error;
    EXPECT_EQ(on_disk, *secrets.begin());
    EXPECT_EQ(Listing(dir), std::vector<std::string>{"secret"});  // every temporary removed
  }
}

TEST(SecretTest, FileFromTheEnvironmentElseHome) {
  std::string error;
  {
    ScopedEnv file(kSecretFileEnv, "/some/where/secret");
    EXPECT_EQ(SecretFilePath(&error), "/some/where/secret");
  }
  {
    ScopedEnv file(kSecretFileEnv, "");
    ScopedEnv home("HOME", "/home/someone/");
    EXPECT_EQ(SecretFilePath(&error), "/home/someone/.deltameta/secret");
  }
  {
    ScopedEnv file(kSecretFileEnv, nullptr);
    ScopedEnv home("HOME", nullptr);
    const std::string path = SecretFilePath(&error);  // from the password database
    EXPECT_FALSE(path.empty()) << error;
    EXPECT_NE(path.find("/.deltameta/secret"), std::string::npos) << path;
  }
}

TEST(SecretTest, Compare) {
  const std::string a(kSecretBytes, 'a');
  std::string b = a;
  EXPECT_TRUE(SecretsEqual(a, b));
  for (size_t i : {size_t{0}, kSecretBytes / 2, kSecretBytes - 1}) {
    b = a;
    b[i] ^= 1;
    EXPECT_FALSE(SecretsEqual(a, b)) << i;
  }
  EXPECT_FALSE(SecretsEqual(a, a.substr(1)));
  EXPECT_FALSE(SecretsEqual(a, ""));
}

}  // namespace
}  // namespace deltameta
