// The job's secret file: see secret.h.
#include "rpc/secret.h"

#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace deltameta {
namespace {

enum class Found { kOk, kMissing, kBad };

std::string Octal(unsigned mode) {
  char b[8];
  std::snprintf(b, sizeof(b), "%04o", mode & 07777u);
  return b;
}

bool ReadAll(int fd, char* out, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = pread(fd, out + got, n - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += static_cast<size_t>(r);
  }
  return true;
}

bool WriteAll(int fd, const char* in, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t w = write(fd, in + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<size_t>(w);
  }
  return true;
}

bool RandomBytes(char* out, size_t n, std::string* error) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(out + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      *error = std::string("cannot make a secret: getrandom failed: ") + std::strerror(errno);
      return false;
    }
    got += static_cast<size_t>(r);
  }
  return true;
}

// Opens and checks the secret at `path` (the checks are on the opened file, not the name).
Found Load(const std::string& path, std::string* secret, std::string* error) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) return Found::kMissing;
    *error = "cannot open the secret file " + path + ": " + std::strerror(errno);
    return Found::kBad;
  }
  struct stat st {};
  Found found = Found::kBad;
  if (fstat(fd, &st) != 0) {
    *error = "cannot stat the secret file " + path + ": " + std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    *error = "the secret file " + path + " is not a regular file: remove it (a server makes a new one) or set " +
             kSecretFileEnv + " to another path";
  } else if (st.st_uid != geteuid()) {
    *error = "the secret file " + path + " belongs to uid " + std::to_string(st.st_uid) + ", not to this user (uid " +
             std::to_string(geteuid()) + "): use a file of your own (set " + kSecretFileEnv + ")";
  } else if ((st.st_mode & 077) != 0) {
    *error = "the secret file " + path + " has mode " + Octal(st.st_mode) +
             ", so group or others may read or change it: chmod 600 " + path;
  } else if (st.st_size != static_cast<off_t>(kSecretBytes)) {
    *error = "the secret file " + path + " holds " + std::to_string(st.st_size) + " bytes, not a secret of " +
             std::to_string(kSecretBytes) + ": remove it and start the server again to make a new one";
  } else {
    secret->resize(kSecretBytes);
    if (ReadAll(fd, &(*secret)[0], kSecretBytes)) {
      found = Found::kOk;
    } else {
      *error = "cannot read the secret file " + path + ": " + std::strerror(errno ? errno : EIO);
    }
  }
  close(fd);
  return found;
}

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string Hex(const char* p, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; i++) {
    out += kDigits[(static_cast<unsigned char>(p[i]) >> 4) & 0xf];
    out += kDigits[static_cast<unsigned char>(p[i]) & 0xf];
  }
  return out;
}

// Writes a new secret under a temporary name and links it to `path` unless something is
// there already. True if nothing failed (whether or not this call's secret won).
bool Publish(const std::string& path, bool* won, std::string* error) {
  *won = false;
  const std::string dir = Dirname(path);
  char fresh[kSecretBytes + 8];
  if (!RandomBytes(fresh, sizeof(fresh), error)) return false;
  const std::string tmp =
      dir + "/.deltameta-secret-" + std::to_string(getpid()) + "-" + Hex(fresh + kSecretBytes, 8) + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    *error = "cannot make the secret file " + path + ": " + tmp + ": " + std::strerror(errno);
    return false;
  }
  const bool written = fchmod(fd, 0600) == 0 && WriteAll(fd, fresh, kSecretBytes) && fsync(fd) == 0;
  const int write_errno = errno;
  if (close(fd) != 0 || !written) {
    *error = "cannot write the secret file " + path + ": " + tmp + ": " + std::strerror(written ? errno : write_errno);
    unlink(tmp.c_str());
    return false;
  }
  // link() never replaces an existing name; where hard links are not supported, a rename
  // that refuses to replace one does the same.
  int rc = link(tmp.c_str(), path.c_str());
  int e = errno;
  if (rc != 0 && e != EEXIST) {
    rc = renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE);
    e = errno;
  }
  unlink(tmp.c_str());
  if (rc == 0) {
    *won = true;
    int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      fsync(dfd);
      close(dfd);
    }
    return true;
  }
  if (e == EEXIST) return true;  // another server made it first: use theirs
  *error = "cannot make the secret file " + path + ": " + std::strerror(e);
  return false;
}

}  // namespace

std::string SecretFilePath(std::string* error) {
  const char* file = std::getenv(kSecretFileEnv);
  if (file != nullptr && *file != '\0') return file;
  std::string home;
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') {
    home = h;
  } else {
    std::vector<char> buf(16384);
    passwd pw{}, *found = nullptr;
    if (getpwuid_r(geteuid(), &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr && pw.pw_dir != nullptr) {
      home = pw.pw_dir;
    }
  }
  if (home.empty()) {
    *error = std::string("no secret file: neither ") + kSecretFileEnv + " nor HOME is set";
    return "";
  }
  while (home.size() > 1 && home.back() == '/') home.pop_back();
  return (home == "/" ? "" : home) + "/.deltameta/secret";
}

bool ReadSecret(const std::string& path, std::string* secret, std::string* error) {
  switch (Load(path, secret, error)) {
    case Found::kOk:
      return true;
    case Found::kMissing:
      *error = "no secret file " + path +
               ": a server makes it when it starts; run as the server's user with "
               "the same HOME, or set " +
               std::string(kSecretFileEnv) + " to the server's file";
      return false;
    case Found::kBad:
      return false;
  }
  return false;
}

bool ReadOrCreateSecret(const std::string& path, std::string* secret, bool* created, std::string* error) {
  if (created != nullptr) *created = false;
  const std::string dir = Dirname(path);
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    *error = "cannot make the directory " + dir + " for the secret file: " + std::strerror(errno);
    return false;
  }
  // Normally one pass; again only if the secret vanished between linking and reading.
  for (int attempt = 0; attempt < 3; attempt++) {
    switch (Load(path, secret, error)) {
      case Found::kOk:
        return true;
      case Found::kBad:
        return false;
      case Found::kMissing:
        break;
    }
    bool won = false;
    if (!Publish(path, &won, error)) return false;
    if (won && created != nullptr) *created = true;
  }
  *error = "the secret file " + path + " keeps disappearing: is another program removing it?";
  return false;
}

bool SecretsEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  volatile unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); i++) diff = diff | static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace deltameta
