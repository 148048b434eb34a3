#pragma once
// A host path an execution environment shows its agent (a bubblewrap bind, a container
// volume): at `target` (the same path when equal), writable unless read_only.

#include <string>

namespace agentry::core {

struct Mount {
  std::string source;  // on the host, absolute
  std::string target;  // inside, absolute
  bool read_only = false;
};

}  // namespace agentry::core
