#pragma once
// The bounds of workspace work (docs/api.md, "Workspace"): nothing a request asks for
// reads, walks or answers without a limit, and slow work has a deadline.

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace agentry::workspace {

struct Limits {
  /// Entries one directory listing answers (the rest: truncated).
  std::size_t max_list_entries = 5000;
  /// Search: results by default and at most; entries visited before giving up.
  std::size_t default_search_results = 50;
  std::size_t max_search_results = 1000;
  std::size_t max_search_visited = 200000;
  /// A text preview, and a raw download.
  std::uint64_t max_preview_bytes = 1024 * 1024;
  std::uint64_t max_raw_bytes = 64ull * 1024 * 1024;
  /// A diff: bytes of unified patch, files listed, and one file's text considered.
  std::size_t max_patch_bytes = 2 * 1024 * 1024;
  std::size_t max_diff_files = 5000;
  /// Deadline of a diff or a search; what is done by then is answered, truncated.
  std::chrono::milliseconds deadline{10000};
};

/// A point in time slow work checks now and then.
class Deadline {
 public:
  explicit Deadline(std::chrono::milliseconds budget) : end_(std::chrono::steady_clock::now() + budget) {}
  bool passed() const { return std::chrono::steady_clock::now() >= end_; }

 private:
  std::chrono::steady_clock::time_point end_;
};

}  // namespace agentry::workspace
