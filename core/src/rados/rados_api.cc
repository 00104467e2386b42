// Loading librados at run time: see rados_api.h.
#include "rados/rados_api.h"

#include <dlfcn.h>

#include "util/shared_library.h"

namespace deltameta {
namespace {

RadosApi the_api;

// Fills the_api; "" on success, else why not.
std::string Load() {
  // The library this build was configured with, then whichever the loader finds.
  std::string tried;
  void* lib = OpenFirstLibrary({DELTAMETA_LIBRADOS_PATH, "librados.so.2"}, &tried);
  if (lib == nullptr) return "rados:// needs librados, which cannot be loaded (" + tried + "): install librados2";
#define DELTAMETA_RADOS_RESOLVE(name)                                    \
  the_api.name = reinterpret_cast<decltype(&::name)>(dlsym(lib, #name)); \
  if (the_api.name == nullptr) return "the librados found lacks " #name ": install librados2 16.2 or later";
  DELTAMETA_RADOS_CALLS(DELTAMETA_RADOS_RESOLVE)
#undef DELTAMETA_RADOS_RESOLVE
  return "";
}

}  // namespace

const RadosApi* LoadLibrados(std::string* error) { return LoadOnce(&the_api, Load, error); }

const RadosApi& Librados() { return the_api; }

}  // namespace deltameta
