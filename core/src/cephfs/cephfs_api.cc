// Loading libcephfs at run time: see cephfs_api.h.
#include "cephfs/cephfs_api.h"

#include <dlfcn.h>

#include "util/shared_library.h"

namespace deltameta {
namespace {

CephfsApi the_api;

// Fills the_api; "" on success, else why not.
std::string Load() {
  // The library this build was configured with, then whichever the loader finds.
  std::string tried;
  void* lib = OpenFirstLibrary({DELTAMETA_LIBCEPHFS_PATH, "libcephfs.so.2"}, &tried);
  if (lib == nullptr)
    return "the CephFS client needs libcephfs, which cannot be loaded (" + tried + "): install libcephfs2";
#define DELTAMETA_CEPHFS_RESOLVE(name)                                   \
  the_api.name = reinterpret_cast<decltype(&::name)>(dlsym(lib, #name)); \
  if (the_api.name == nullptr) return "the libcephfs found lacks " #name ": install libcephfs2 16.2 or later";
  DELTAMETA_CEPHFS_CALLS(DELTAMETA_CEPHFS_RESOLVE)
#undef DELTAMETA_CEPHFS_RESOLVE
  return "";
}

}  // namespace

const CephfsApi* LoadLibcephfs(std::string* error) { return LoadOnce(&the_api, Load, error); }

}  // namespace deltameta
