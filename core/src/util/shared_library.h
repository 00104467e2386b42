// Loading a shared library at run time (librados, libcephfs): the first of several names the
// dynamic loader can open, and every reason the others could not be.
#pragma once

#include <initializer_list>
#include <string>

namespace deltameta {

// dlopen()s the first of `names` that loads (RTLD_NOW | RTLD_LOCAL) and returns its handle;
// nullptr when none does, with each name's loader error, joined by "; ", in `*errors`.
void* OpenFirstLibrary(std::initializer_list<const char*> names, std::string* errors);

}  // namespace deltameta
