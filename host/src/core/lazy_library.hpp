// A system library opened when first needed instead of linked: each user says why (the
// libraries a library pulls in are loaded at every exec when linked). Never closed, since
// what it returned may be in use on any thread until exit.
#pragma once

namespace agentry::core {

class LazyLibrary {
 public:
  /// dlopen(`soname`). Throws std::runtime_error naming the Debian `package` to install
  /// when it cannot.
  LazyLibrary(const char* soname, const char* package);

  /// Points `out` (a function pointer) at `symbol`. Throws std::runtime_error when the
  /// library has no such symbol.
  template <class Function>
  void bind(Function& out, const char* symbol) const {
    out = reinterpret_cast<Function>(find(symbol));
  }

 private:
  void* find(const char* symbol) const;

  const char* soname_;
  void* handle_;
};

}  // namespace agentry::core
