#pragma once
// Which libgit2 this agentry runs with (for `agentry doctor`), without exposing <git2.h>.

#include <string>

namespace agentry::workspace {

/// "major.minor.revision" of the libgit2 loaded at run time.
std::string libgit2_version();

}  // namespace agentry::workspace
