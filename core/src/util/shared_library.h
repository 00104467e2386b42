// Loading a shared library at run time (librados, libcephfs): the first of several names the
// dynamic loader can open, and every reason the others could not be; a table of its calls
// filled once per process.
#pragma once

#include <initializer_list>
#include <mutex>
#include <string>

namespace deltameta {

// dlopen()s the first of `names` that loads (RTLD_NOW | RTLD_LOCAL) and returns its handle;
// nullptr when none does, with each name's loader error, joined by "; ", in `*errors`.
void* OpenFirstLibrary(std::initializer_list<const char*> names, std::string* errors);

// `*api` once `load` has filled it: `load` runs once per process and API type, whoever calls
// first ("" on success, else why not); nullptr with that reason in `*error` when it failed.
template <typename Api>
const Api* LoadOnce(Api* api, std::string (*load)(), std::string* error) {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [load] { failure = load(); });
  if (!failure.empty()) {
    *error = failure;
    return nullptr;
  }
  return api;
}

}  // namespace deltameta
