// The MD-Workbench tool's cephfs interface (interface.h): the posix interface's tree,
// <root>/<data set>/<object>, in a CephFS reached through libcephfs (src/cephfs/, the
// cluster of CEPH_CONF, mounted as root by every rank): an object is created with
// ceph_open(O_CREAT | O_EXCL) and ceph_write, read back whole with ceph_read, checked with
// ceph_statx, removed with ceph_unlink; data set directories are made and removed with
// ceph_mkdir and ceph_rmdir. A phase's writes end with ceph_sync_fs (the MDS has journaled
// them and the data is in the OSDs). Every request is bounded by --rpc_timeout
// (cephfs_watchdog.h): a dead MDS ends the job with one line.
#include <fcntl.h>
#include <sys/stat.h>

#include <cstring>
#include <utility>

#include "cephfs/cephfs_mount.h"
#include "mdworkbench/interface.h"

namespace deltameta {
namespace {

std::string Why(int r) { return std::strerror(-r); }

class CephfsInterface : public MdwInterface {
 public:
  CephfsInterface(std::unique_ptr<CephfsMount> mount, std::string root)
      : mount_(std::move(mount)), api_(mount_->api()), root_(std::move(root)) {}

  const char* name() const override { return "cephfs"; }

  Outcome CreateDataSet(uint32_t owner, uint32_t set, std::string* error) override {
    const std::string dir = root_ + "/" + DataSetName(owner, set);
    const int r = mount_->Call("mkdir", [&] { return api_.ceph_mkdir(mount_->get(), dir.c_str(), 0755); });
    if (r == 0 || r == -EEXIST) return Outcome::kOk;
    *error = "cannot make data set directory " + dir + ": " + Why(r);
    return Outcome::kFailed;
  }

  Outcome RemoveDataSet(uint32_t owner, uint32_t set, std::string* error) override {
    const std::string dir = root_ + "/" + DataSetName(owner, set);
    const int r = mount_->Call("rmdir", [&] { return api_.ceph_rmdir(mount_->get(), dir.c_str()); });
    if (r == 0) return Outcome::kOk;
    if (r == -ENOENT) return Outcome::kNotFound;
    *error = "cannot remove data set directory " + dir + ": " + Why(r);
    return Outcome::kFailed;
  }

  Outcome Create(const ObjectId& id, std::string_view data, std::string* error) override {
    const char* path = PathOf(id);
    const int fd =
        mount_->Call("open", [&] { return api_.ceph_open(mount_->get(), path, O_CREAT | O_EXCL | O_WRONLY, 0644); });
    if (fd == -EEXIST) return Outcome::kExists;
    if (fd < 0) return Failed("cannot create", fd, error);
    size_t done = 0;
    int r = 0;
    while (done < data.size()) {
      r = mount_->Call("write", [&] {
        return api_.ceph_write(mount_->get(), fd, data.data() + done, static_cast<int64_t>(data.size() - done),
                               static_cast<int64_t>(done));
      });
      if (r <= 0) break;
      done += static_cast<size_t>(r);
    }
    const int closed = mount_->Call("close", [&] { return api_.ceph_close(mount_->get(), fd); });
    if (done != data.size()) return Failed("cannot write", r < 0 ? r : -EIO, error);
    return closed < 0 ? Failed("cannot close", closed, error) : Outcome::kOk;
  }

  Outcome Stat(const ObjectId& id, ObjectAttributes* attributes, std::string* error) override {
    const char* path = PathOf(id);
    struct ceph_statx stx;
    const int r = mount_->Call(
        "statx", [&] { return api_.ceph_statx(mount_->get(), path, &stx, CEPH_STATX_MODE | CEPH_STATX_SIZE, 0); });
    if (r < 0) return Missing("cannot stat", r, error);
    attributes->size = stx.stx_size;
    attributes->mode = stx.stx_mode;
    return Outcome::kOk;
  }

  Outcome Read(const ObjectId& id, std::string* data, std::string* error) override {
    const char* path = PathOf(id);
    const int fd = mount_->Call("open", [&] { return api_.ceph_open(mount_->get(), path, O_RDONLY, 0); });
    if (fd < 0) return Missing("cannot open", fd, error);
    // Reads until end of file, so an object longer than it should be is seen whole.
    data->clear();
    size_t have = 0;
    int r = 0;
    for (;;) {
      if (data->size() < have + 4096) data->resize(have + 4096 + have / 2);
      r = mount_->Call("read", [&] {
        return api_.ceph_read(mount_->get(), fd, &(*data)[have], static_cast<int64_t>(data->size() - have),
                              static_cast<int64_t>(have));
      });
      if (r <= 0) break;
      have += static_cast<size_t>(r);
    }
    data->resize(have);
    mount_->Call("close", [&] { return api_.ceph_close(mount_->get(), fd); });
    return r < 0 ? Failed("cannot read", r, error) : Outcome::kOk;
  }

  Outcome Delete(const ObjectId& id, std::string* error) override {
    const char* path = PathOf(id);
    const int r = mount_->Call("unlink", [&] { return api_.ceph_unlink(mount_->get(), path); });
    return r < 0 ? Missing("cannot remove", r, error) : Outcome::kOk;
  }

  // The MDS has journaled this client's metadata changes and the OSDs hold its data.
  bool Finish(std::string* error) override {
    const int r = mount_->Call("sync", [this] { return api_.ceph_sync_fs(mount_->get()); });
    if (r < 0) *error = "CephFS sync failed: " + Why(r);
    return r == 0;
  }

 private:
  const char* PathOf(const ObjectId& id) {
    path_.assign(root_).append("/").append(DataSetName(id.owner, id.set)).append("/").append(ObjectName(id));
    return path_.c_str();
  }

  // kNotFound if the object (or its data set) does not exist, else kFailed with *error.
  Outcome Missing(const char* what, int r, std::string* error) const {
    return r == -ENOENT ? Outcome::kNotFound : Failed(what, r, error);
  }

  Outcome Failed(const char* what, int r, std::string* error) const {
    *error = std::string(what) + " " + path_ + " in CephFS: " + Why(r);
    return Outcome::kFailed;
  }

  std::unique_ptr<CephfsMount> mount_;
  const CephfsApi& api_;
  std::string root_;
  std::string path_;  // the object of the current operation
};

}  // namespace

std::unique_ptr<MdwInterface> OpenCephfsInterface(const std::string& root, const std::string& fs_name, int timeout_s,
                                                  std::string* error) {
  auto mount = CephfsMount::Open(fs_name, 0, 0, timeout_s, error);
  if (!mount || !mount->MakeDirs(root, 0755, error)) return nullptr;
  return std::make_unique<CephfsInterface>(std::move(mount), root);
}

}  // namespace deltameta
