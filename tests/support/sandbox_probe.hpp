// What the sandbox tests share: whether bubblewrap can make a sandbox on this machine, and
// a directory outside /tmp (a sandbox's /tmp is its own tmpfs, so a path there says
// nothing about the host).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace agentry::test {

/// bwrap is installed and namespaces are allowed here.
inline bool bubblewrap_works() {
  static const bool works = std::system("bwrap --ro-bind / / --dev /dev --proc /proc --unshare-net true "
                                        ">/dev/null 2>&1") == 0;
  return works;
}

/// A fresh directory under the test's working directory, removed with the object.
class OutsideDir {
 public:
  OutsideDir() {
    std::string pattern = (std::filesystem::current_path() / "environments-outside-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~OutsideDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  OutsideDir(const OutsideDir&) = delete;
  OutsideDir& operator=(const OutsideDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace agentry::test
