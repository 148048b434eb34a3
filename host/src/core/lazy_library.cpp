#include "core/lazy_library.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace agentry::core {

LazyLibrary::LazyLibrary(const char* soname, const char* package)
    : soname_(soname), handle_(dlopen(soname, RTLD_NOW | RTLD_LOCAL)) {
  if (handle_ == nullptr) {
    const char* why = dlerror();
    throw std::runtime_error(std::string("cannot open ") + soname + " (Debian: apt install " + package +
                             "): " + (why != nullptr ? why : "not found"));
  }
}

void* LazyLibrary::find(const char* symbol) const {
  void* found = dlsym(handle_, symbol);
  if (found == nullptr) throw std::runtime_error(std::string(soname_) + " has no " + symbol);
  return found;
}

}  // namespace agentry::core
