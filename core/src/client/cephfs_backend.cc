// The CephFS client backend: see cephfs_backend.h.
#include "client/cephfs_backend.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cstring>

#include "cephfs/cephfs_mount.h"

namespace deltameta {
namespace {

constexpr unsigned kDirMode = 0777;

// The directory of workload dir_id (Workload::DirId): 1 is --cephfs_dir, 2 + r rank r's.
std::string DirPath(const std::string& root, uint64_t dir_id) {
  return dir_id == 1 ? root : root + "/r" + std::to_string(dir_id - 2);
}

uint64_t Micros(const timespec& t) {
  return static_cast<uint64_t>(t.tv_sec) * 1000000 + static_cast<uint64_t>(t.tv_nsec) / 1000;
}

class CephfsBackend : public ClientBackend {
 public:
  // count_dir: the directory LocalEntries counts (0: none).
  CephfsBackend(std::unique_ptr<CephfsMount> mount, std::string dir, uint64_t count_dir)
      : mount_(std::move(mount)), api_(mount_->api()), dir_(std::move(dir)), count_dir_(count_dir) {}

  bool Create(uint64_t dir_id, std::string_view name, const FileStat& stat, OpStatus* status,
              std::string* error) override {
    const char* path = Path(dir_id, name);
    const int r =
        mount_->Call("mknod", [&] { return api_.ceph_mknod(mount_->get(), path, S_IFREG | (stat.mode & 07777), 0); });
    return Done(r, "mknod", path, status, error);
  }

  bool Lstat(uint64_t dir_id, std::string_view name, FileStat* stat, OpStatus* status, std::string* error) override {
    const char* path = Path(dir_id, name);
    struct ceph_statx stx;
    const int r = mount_->Call("statx", [&] {
      return api_.ceph_statx(mount_->get(), path, &stx, CEPH_STATX_BASIC_STATS, AT_SYMLINK_NOFOLLOW);
    });
    if (r == 0) {
      stat->ino = stx.stx_ino;
      stat->mode = stx.stx_mode;
      stat->uid = stx.stx_uid;
      stat->gid = stx.stx_gid;
      stat->size = stx.stx_size;
      stat->mtime_us = Micros(stx.stx_mtime);
      stat->ctime_us = Micros(stx.stx_ctime);
    }
    return Done(r, "statx", path, status, error);
  }

  // The MDS has journaled every create of this client once this returns.
  bool Commit(std::string* error) override {
    const int r = mount_->Call("sync", [this] { return api_.ceph_sync_fs(mount_->get()); });
    if (r < 0) *error = std::string("CephFS sync failed: ") + std::strerror(-r);
    return r == 0;
  }

  bool LocalEntries(uint64_t* entries, std::string* error) override {
    *entries = 0;
    return count_dir_ == 0 || mount_->CountEntries(DirPath(dir_, count_dir_), entries, error);
  }

  bool AssignsInodes() const override { return true; }

 private:
  const char* Path(uint64_t dir_id, std::string_view name) {
    if (dir_id != path_dir_) {
      prefix_ = DirPath(dir_, dir_id) + "/";
      path_dir_ = dir_id;
    }
    path_.assign(prefix_).append(name);
    return path_.c_str();
  }

  // A missing or existing name is the operation's status; any other error ends the job.
  static bool Done(int r, const char* op, const char* path, OpStatus* status, std::string* error) {
    if (r == 0 || r == -EEXIST || r == -ENOENT) {
      *status = r == 0 ? OpStatus::kOk : r == -EEXIST ? OpStatus::kExists : OpStatus::kNotFound;
      return true;
    }
    *error = std::string("CephFS ") + op + " " + path + " failed: " + std::strerror(-r);
    return false;
  }

  std::unique_ptr<CephfsMount> mount_;
  const CephfsApi& api_;
  std::string dir_;
  uint64_t count_dir_;
  uint64_t path_dir_ = 0;
  std::string prefix_, path_;
};

}  // namespace

bool PrepareCephfsDirs(const ClientFlags& flags, uint32_t ranks, std::string* error) {
  auto mount = CephfsMount::Open(flags.cephfs_name, 0, 0, static_cast<int>(flags.rpc_timeout), error);
  if (!mount || !mount->MakeDirs(flags.cephfs_dir, kDirMode, error)) return false;
  for (uint32_t r = 0; !flags.share_dir && r < ranks; r++) {
    if (!mount->MakeDirs(DirPath(flags.cephfs_dir, 2 + r), kDirMode, error)) return false;
  }
  return true;
}

std::unique_ptr<ClientBackend> OpenCephfsBackend(const ClientFlags& flags, const Workload& work, std::string* error) {
  const FileStat user = work.StatFor(0, 0);
  auto mount = CephfsMount::Open(flags.cephfs_name, user.uid, user.gid, static_cast<int>(flags.rpc_timeout), error);
  if (!mount) return nullptr;
  // Rank 0 counts the shared directory; without it every rank counts its own.
  const uint64_t count_dir = !work.share_dir ? work.DirId() : work.rank == 0 ? 1 : 0;
  return std::make_unique<CephfsBackend>(std::move(mount), flags.cephfs_dir, count_dir);
}

}  // namespace deltameta
