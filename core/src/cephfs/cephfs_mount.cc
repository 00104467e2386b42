// A CephFS mount: see cephfs_mount.h.
#include "cephfs/cephfs_mount.h"

#include <dirent.h>

#include <cstdlib>
#include <cstring>

namespace deltameta {
namespace {

std::string Why(int r) { return std::strerror(-r); }

}  // namespace

std::unique_ptr<CephfsMount> CephfsMount::Open(const std::string& fs_name, uint32_t uid, uint32_t gid, int timeout_s,
                                               std::string* error) {
  const CephfsApi* api = LoadLibcephfs(error);
  if (api == nullptr) return nullptr;
  const char* conf = std::getenv("CEPH_CONF");
  if (conf != nullptr && *conf == '\0') conf = nullptr;
  const std::string conf_name = conf ? conf : "Ceph's default config (/etc/ceph/ceph.conf)";
  ceph_mount_info* mount = nullptr;
  int r = api->ceph_create(&mount, nullptr);
  if (r < 0) {
    *error = "cannot create a CephFS client: " + Why(r);
    return nullptr;
  }
  std::unique_ptr<CephfsMount> m(new CephfsMount(api, mount, timeout_s));
  r = api->ceph_conf_read_file(mount, conf);
  if (r < 0) {
    *error = "cannot read " + conf_name + ": " + Why(r) +
             ": set CEPH_CONF to the cluster's config (scripts/ceph-cluster.sh start DIR --cephfs prints it)";
    return nullptr;
  }
  r = api->ceph_conf_parse_env(mount, nullptr);
  if (r < 0) {
    *error = "CEPH_ARGS is invalid: " + Why(r);
    return nullptr;
  }
  const std::string timeout = std::to_string(timeout_s);
  r = api->ceph_conf_set(mount, "client_mount_timeout", timeout.c_str());  // reaching the monitor, then the MDS
  if (r < 0) {
    *error = "cannot set client_mount_timeout: " + Why(r);
    return nullptr;
  }
  if (!fs_name.empty() && (r = api->ceph_select_filesystem(mount, fs_name.c_str())) < 0) {
    *error = "cannot select CephFS file system " + fs_name + ": " + Why(r);
    return nullptr;
  }
  // Starting the client reaches the monitor; mounting, the MDS: both within the timeout.
  const auto unreachable = [&](int r) {
    return "cannot mount CephFS " + (fs_name.empty() ? std::string("(the default file system)") : fs_name) + " of " +
           conf_name + " within " + timeout + " s: " + Why(r) +
           ": is the cluster up with an active MDS (scripts/ceph-cluster.sh start DIR --cephfs)?";
  };
  r = api->ceph_init(mount);
  if (r < 0) {
    *error = unreachable(r);
    return nullptr;
  }
  UserPerm* perms = api->ceph_userperm_new(uid, gid, 0, nullptr);
  r = perms == nullptr ? -ENOMEM : api->ceph_mount_perms_set(mount, perms);  // a copy
  if (perms != nullptr) api->ceph_userperm_destroy(perms);
  if (r < 0) {
    *error = "cannot set the CephFS user " + std::to_string(uid) + ":" + std::to_string(gid) + ": " + Why(r);
    return nullptr;
  }
  r = api->ceph_mount(mount, "/");
  if (r == -ENOENT && !fs_name.empty()) {
    *error =
        "the Ceph cluster of " + conf_name + " has no CephFS file system " + fs_name + ": name one `ceph fs ls` lists";
    return nullptr;
  }
  if (r < 0) {
    *error = unreachable(r);
    return nullptr;
  }
  return m;
}

CephfsMount::~CephfsMount() {
  Call("unmount", [this] { return api_->ceph_unmount(mount_); });
  api_->ceph_release(mount_);
}

bool CephfsMount::MakeDirs(const std::string& path, unsigned mode, std::string* error) {
  int r = Call("mkdirs", [&] { return api_->ceph_mkdirs(mount_, path.c_str(), mode); });
  if (r == -EEXIST) r = 0;
  if (r == 0) r = Call("chmod", [&] { return api_->ceph_chmod(mount_, path.c_str(), mode); });
  if (r < 0) *error = "cannot make the CephFS directory " + path + ": " + Why(r);
  return r == 0;
}

bool CephfsMount::CountEntries(const std::string& path, uint64_t* entries, std::string* error) {
  ceph_dir_result* dir = nullptr;
  int r = Call("opendir", [&] { return api_->ceph_opendir(mount_, path.c_str(), &dir); });
  if (r < 0) {
    *error = "cannot list the CephFS directory " + path + ": " + Why(r);
    return false;
  }
  *entries = 0;
  dirent e;
  while ((r = Call("readdir", [&] { return api_->ceph_readdir_r(mount_, dir, &e); })) == 1) {
    if (std::strcmp(e.d_name, ".") != 0 && std::strcmp(e.d_name, "..") != 0) ++*entries;
  }
  Call("closedir", [&] { return api_->ceph_closedir(mount_, dir); });
  if (r < 0) *error = "cannot list the CephFS directory " + path + ": " + Why(r);
  return r == 0;
}

}  // namespace deltameta
