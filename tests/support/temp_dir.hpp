// A unique scratch directory for one test, removed when the test is done.
#pragma once

#include <filesystem>
#include <string_view>

namespace agentry::test {

class TempDir {
 public:
  /// Creates <temp_directory_path()>/agentry-test-XXXXXX (mode 0700). Throws on failure.
  TempDir();
  /// Removes the directory recursively, unless AGENTRY_KEEP_TEST_DIRS is set (then its path
  /// is printed to stderr so it can be inspected).
  ~TempDir();
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

  /// Writes `content` to path()/relative, creating parent directories; returns the full path.
  /// Throws std::runtime_error if `relative` is absolute or escapes the directory.
  std::filesystem::path write_file(const std::filesystem::path& relative,
                                   std::string_view content) const;
  /// Creates path()/relative (and parents); returns the full path.
  std::filesystem::path make_dir(const std::filesystem::path& relative) const;

 private:
  void remove() noexcept;
  std::filesystem::path path_;
};

/// Reads a whole file (binary); throws std::runtime_error naming the path if it cannot.
[[nodiscard]] std::string read_file(const std::filesystem::path& path);

/// Writes a whole file (binary), creating parent directories; throws on failure.
void write_file(const std::filesystem::path& path, std::string_view content);

}  // namespace agentry::test
