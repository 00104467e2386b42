// The MD-Workbench tool's posix interface (interface.h): a directory tree under a root on
// a local file system, <root>/<data set>/<object>, an object a file of its bytes created
// with openat(O_CREAT | O_EXCL) and write(2), read back whole with read(2), checked with
// fstatat(2), removed with unlinkat(2), each naming the object relative to its data set's
// directory (a descriptor opened once), so the root's depth adds no lookups to an
// operation. Data set directories are made and removed with mkdir(2) and rmdir(2).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <utility>

#include "mdworkbench/interface.h"

namespace deltameta {
namespace {

std::string Why(const char* what, const std::string& path) {
  return std::string(what) + " " + path + ": " + std::strerror(errno);
}

// Creates `path` and its missing parents.
bool MakeDirs(const std::string& path) {
  for (size_t at = path.find('/', 1);; at = path.find('/', at + 1)) {
    const std::string prefix = path.substr(0, at);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return false;
    if (at == std::string::npos) return true;
  }
}

class PosixInterface : public MdwInterface {
 public:
  explicit PosixInterface(std::string root) : root_(std::move(root)) {
    const mode_t mask = umask(0);
    umask(mask);
    expected_mode_ = kObjectMode & ~static_cast<uint32_t>(mask);
  }
  ~PosixInterface() override {
    for (const auto& entry : dirs_) close(entry.second);
  }

  const char* name() const override { return "posix"; }
  uint32_t ExpectedMode() const override { return expected_mode_; }

  Outcome CreateDataSet(uint32_t owner, uint32_t set, std::string* error) override {
    const std::string dir = root_ + "/" + DataSetName(owner, set);
    if (mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) return Outcome::kOk;
    *error = Why("cannot make data set directory", dir);
    return Outcome::kFailed;
  }

  Outcome RemoveDataSet(uint32_t owner, uint32_t set, std::string* error) override {
    const std::string dir = root_ + "/" + DataSetName(owner, set);
    const auto open = dirs_.find({owner, set});
    if (open != dirs_.end()) {
      close(open->second);
      dirs_.erase(open);
    }
    if (rmdir(dir.c_str()) == 0) return Outcome::kOk;
    if (errno == ENOENT) return Outcome::kNotFound;
    *error = Why("cannot remove data set directory", dir);
    return Outcome::kFailed;
  }

  Outcome Create(const ObjectId& id, std::string_view data, std::string* error) override {
    const int dir = DirOf(id);
    const int fd = dir < 0 ? -1 : openat(dir, ObjectName(id).c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) {
      if (errno == EEXIST) return Outcome::kExists;
      *error = ObjectError("cannot create", id);
      return Outcome::kFailed;
    }
    size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = write(fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    const bool written = done == data.size();
    if (!written) *error = ObjectError("cannot write", id);
    if (close(fd) != 0 && written) {
      *error = ObjectError("cannot close", id);
      return Outcome::kFailed;
    }
    return written ? Outcome::kOk : Outcome::kFailed;
  }

  Outcome Stat(const ObjectId& id, ObjectAttributes* attributes, std::string* error) override {
    const int dir = DirOf(id);
    struct stat st;
    if (dir < 0 || fstatat(dir, ObjectName(id).c_str(), &st, 0) != 0) return Missing("cannot stat", id, error);
    attributes->size = static_cast<uint64_t>(st.st_size);
    attributes->mode = static_cast<uint32_t>(st.st_mode);
    return Outcome::kOk;
  }

  Outcome Read(const ObjectId& id, std::string* data, std::string* error) override {
    const int dir = DirOf(id);
    const int fd = dir < 0 ? -1 : openat(dir, ObjectName(id).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Missing("cannot open", id, error);
    // Reads until end of file, so a file longer than it should be is seen whole.
    data->clear();
    size_t have = 0;
    for (;;) {
      if (data->size() < have + 4096) data->resize(have + 4096 + have / 2);
      const ssize_t n = read(fd, &(*data)[have], data->size() - have);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        *error = ObjectError("cannot read", id);
        close(fd);
        return Outcome::kFailed;
      }
      if (n == 0) break;
      have += static_cast<size_t>(n);
    }
    data->resize(have);
    close(fd);
    return Outcome::kOk;
  }

  Outcome Delete(const ObjectId& id, std::string* error) override {
    const int dir = DirOf(id);
    if (dir >= 0 && unlinkat(dir, ObjectName(id).c_str(), 0) == 0) return Outcome::kOk;
    return Missing("cannot remove", id, error);
  }

 private:
  // The descriptor of the data set directory holding `id`, opened on first use; -1 (errno
  // set) if it cannot be opened.
  int DirOf(const ObjectId& id) {
    const auto found = dirs_.find({id.owner, id.set});
    if (found != dirs_.end()) return found->second;
    const std::string dir = root_ + "/" + DataSetName(id.owner, id.set);
    const int fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) dirs_.emplace(std::make_pair(id.owner, id.set), fd);
    return fd;
  }

  // The object's path, for messages.
  std::string PathOf(const ObjectId& id) const {
    return root_ + "/" + DataSetName(id.owner, id.set) + "/" + ObjectName(id);
  }

  // kNotFound if errno says the file (or its data set) does not exist, else kFailed with *error.
  Outcome Missing(const char* what, const ObjectId& id, std::string* error) const {
    if (errno == ENOENT) return Outcome::kNotFound;
    *error = ObjectError(what, id);
    return Outcome::kFailed;
  }

  // "<what> <object's path>: <errno's message>".
  std::string ObjectError(const char* what, const ObjectId& id) const {
    const int e = errno;
    return std::string(what) + " " + PathOf(id) + ": " + std::strerror(e);
  }

  std::string root_;
  uint32_t expected_mode_;
  std::map<std::pair<uint32_t, uint32_t>, int> dirs_;  // (owner, set) -> directory descriptor
};

}  // namespace

std::unique_ptr<MdwInterface> NewPosixInterface(const std::string& root, std::string* error) {
  if (root.empty() || !MakeDirs(root)) {
    *error = root.empty() ? "--root is required with --interface=posix (the directory tree's root)"
                          : Why("cannot make the --root directory", root);
    return nullptr;
  }
  return std::make_unique<PosixInterface>(root);
}

}  // namespace deltameta
