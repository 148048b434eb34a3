#pragma once
// The daemon the daemon-driving benchmarks start: $AGENTRY_BIN, else <build>/bin/agentry
// next to this program's <build>/benchmarks/.

#include <cstdlib>
#include <filesystem>

namespace agentry::bench {

inline std::filesystem::path daemon_binary() {
  if (const char* bin = std::getenv("AGENTRY_BIN")) return bin;
  return std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "bin" / "agentry";
}

}  // namespace agentry::bench
