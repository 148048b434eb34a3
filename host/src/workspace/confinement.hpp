#pragma once
// Confinement: every path a request names is resolved inside one run's working
// directory, or refused. The rules (docs/security.md, "Workspace paths"):
//
//  - the path is cwd-relative text, decoded once by the transport: an absolute path, a
//    `..` segment, a backslash, a NUL or control character, or a leftover percent
//    escape (`%2e`, `%2F`: double encoding) is refused before the file system is asked;
//  - `.` and empty segments are dropped;
//  - the remaining path is resolved with realpath(3), so symlinks are followed, and
//    the result must be the root or below it (a symlink that leads out is refused);
//  - a file is opened with O_NOFOLLOW on its resolved path and checked again after the
//    open (fstat against the resolved path's lstat, and /proc/self/fd/<n> still inside
//    the root), so swapping a component for a symlink between the check and the open
//    (TOCTOU) is caught;
//  - a regular file with more than one hard link is refused for reading: a hard link
//    may be another name of a file outside the tree, and nothing tells the two apart.

#include "core/result.hpp"

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::workspace {

/// A descriptor closed on destruction.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

/// A path resolved inside the root.
struct ResolvedPath {
  std::string relative;             // "" for the root itself, else "a/b" (symlinks resolved)
  std::filesystem::path absolute;   // root / relative
  struct stat info {};              // lstat of `absolute`
};

/// A file opened for reading after every check.
struct OpenedFile {
  FileDescriptor fd;
  std::string relative;
  std::uint64_t size = 0;
  std::int64_t modified_ms = 0;
};

class Root {
 public:
  /// `cwd` must exist and be a directory; it is resolved (realpath) once here.
  static core::Result<Root> open(const std::filesystem::path& cwd);

  const std::filesystem::path& path() const { return real_; }

  /// The requested path's shape checked and normalized ("a//./b" -> "a/b", "" or "."
  /// -> ""). FORBIDDEN for the tricks listed above, with details.reason naming it.
  static core::Result<std::string> normalize(std::string_view requested);

  /// normalize(), then realpath() inside the root. NOT_FOUND when nothing is there,
  /// FORBIDDEN when it resolves outside.
  core::Result<ResolvedPath> resolve(std::string_view requested) const;

  /// A regular file, opened read-only without following a final symlink and checked
  /// again after the open. VALIDATION_FAILED for a directory or a special file,
  /// FORBIDDEN for a file with several hard links or one that moved out.
  core::Result<OpenedFile> open_file(std::string_view requested) const;

  /// A directory, opened (O_DIRECTORY|O_NOFOLLOW) and checked again after the open.
  core::Result<FileDescriptor> open_directory(const ResolvedPath& resolved) const;

  /// Why the file and raw routes would not read `relative` (a path git gave, not a
  /// request's): "outside" when it resolves out of the root (through a symlink),
  /// "hardlink" for a regular file with several links. Nothing when they would read
  /// it, or when nothing there can be read (it is gone, or a dangling symlink).
  std::optional<std::string> content_refusal(const std::string& relative) const;

  /// True when `real_path` (already resolved) is the root or below it.
  bool contains(const std::filesystem::path& real_path) const;

 private:
  explicit Root(std::filesystem::path real) : real_(std::move(real)) {}
  /// The path the kernel has for `fd` is still inside the root.
  core::Result<void> check_descriptor(int fd, const std::string& requested) const;

  std::filesystem::path real_;
};

}  // namespace agentry::workspace
