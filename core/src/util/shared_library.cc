// Loading a shared library at run time: see shared_library.h.
#include "util/shared_library.h"

#include <dlfcn.h>

namespace deltameta {

void* OpenFirstLibrary(std::initializer_list<const char*> names, std::string* errors) {
  errors->clear();
  for (const char* name : names) {
    if (void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return lib;
    *errors += std::string(errors->empty() ? "" : "; ") + dlerror();
  }
  return nullptr;
}

}  // namespace deltameta
