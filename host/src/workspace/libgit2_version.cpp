#include "workspace/libgit2_version.hpp"

#include "workspace/git_handles.hpp"

namespace agentry::workspace {

std::string libgit2_version() {
  int major = 0, minor = 0, revision = 0;
  libgit2::get().git_libgit2_version(&major, &minor, &revision);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(revision);
}

}  // namespace agentry::workspace
