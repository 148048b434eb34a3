#include "workspace/confinement.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace agentry::workspace {
namespace fs = std::filesystem;
using core::ErrorCode;

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

namespace {

core::Failure refused(std::string_view requested, const char* reason, const std::string& why) {
  return core::fail(ErrorCode::forbidden,
                    "path '" + std::string(requested) + "' is refused: " + why +
                        "; give a path relative to the run's working directory, inside it",
                    {{"path", requested}, {"reason", reason}});
}

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/// realpath(3) as a std::string; errno kept on failure.
bool real_path_of(const fs::path& path, std::string& out) {
  std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr), &std::free);
  if (!resolved) return false;
  out = resolved.get();
  return true;
}

}  // namespace

core::Result<Root> Root::open(const fs::path& cwd) {
  if (cwd.empty() || !cwd.is_absolute())
    return core::fail(ErrorCode::validation, "the run's working directory '" + cwd.string() + "' is not absolute");
  std::string real;
  if (!real_path_of(cwd, real))
    return core::fail(ErrorCode::validation,
                      "the run's working directory " + cwd.string() + " is not available: " + std::strerror(errno),
                      {{"cwd", cwd.string()}});
  struct stat info {};
  if (::stat(real.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return core::fail(ErrorCode::validation, "the run's working directory " + cwd.string() + " is not a directory",
                      {{"cwd", cwd.string()}});
  return Root(fs::path(real));
}

core::Result<std::string> Root::normalize(std::string_view requested) {
  if (!requested.empty() && requested.front() == '/')
    return refused(requested, "absolute", "absolute paths are not served");
  if (requested.size() > 4096) return refused(requested.substr(0, 64), "too_long", "the path is over 4096 bytes");
  for (std::size_t i = 0; i < requested.size(); ++i) {
    const auto c = static_cast<unsigned char>(requested[i]);
    if (c == '\\') return refused(requested, "backslash", "it contains a backslash");
    if (c < 0x20 || c == 0x7f) return refused(requested, "control_character", "it contains a control character");
    if (c == '%' && i + 2 < requested.size() && is_hex(requested[i + 1]) && is_hex(requested[i + 2]))
      return refused(requested, "percent_encoded",
                     "it still holds a percent escape after decoding (paths are decoded once)");
  }
  std::string out;
  std::size_t start = 0;
  while (start <= requested.size()) {
    std::size_t end = requested.find('/', start);
    if (end == std::string_view::npos) end = requested.size();
    std::string_view segment = requested.substr(start, end - start);
    if (segment == "..") return refused(requested, "parent", "'..' segments are not allowed");
    if (!segment.empty() && segment != ".") {
      if (!out.empty()) out += '/';
      out += segment;
    }
    start = end + 1;
  }
  return out;
}

bool Root::contains(const fs::path& real_path) const {
  const std::string& root = real_.native();
  const std::string& candidate = real_path.native();
  if (candidate == root) return true;
  if (root == "/") return !candidate.empty() && candidate.front() == '/';
  return candidate.size() > root.size() && candidate.compare(0, root.size(), root) == 0 &&
         candidate[root.size()] == '/';
}

core::Result<ResolvedPath> Root::resolve(std::string_view requested) const {
  auto relative = normalize(requested);
  if (!relative) return relative.failure();
  const fs::path joined = relative->empty() ? real_ : real_ / *relative;
  std::string real;
  if (!real_path_of(joined, real)) {
    const int error = errno;
    if (error == ENOENT || error == ENOTDIR)
      return core::fail(ErrorCode::not_found, "no file or directory '" + *relative + "' in the run's working directory",
                        {{"path", *relative}});
    if (error == ELOOP) return refused(requested, "symlink_loop", "it goes through a symlink loop");
    return core::fail(ErrorCode::validation, "cannot resolve '" + *relative + "': " + std::strerror(error),
                      {{"path", *relative}});
  }
  if (!contains(fs::path(real)))
    return refused(requested, "outside", "it resolves outside the run's working directory (through a symlink)");
  ResolvedPath out;
  out.absolute = fs::path(real);
  out.relative = real.size() == real_.native().size() ? std::string()
                 : real_.native() == "/"                ? real.substr(1)
                                                        : real.substr(real_.native().size() + 1);
  if (::lstat(real.c_str(), &out.info) != 0)
    return core::fail(ErrorCode::not_found, "no file or directory '" + *relative + "' in the run's working directory",
                      {{"path", *relative}});
  return out;
}

std::optional<std::string> Root::content_refusal(const std::string& relative) const {
  const fs::path path = real_ / relative;
  struct stat own {};
  if (::lstat(path.c_str(), &own) != 0) return std::nullopt;
  std::string real;
  if (!real_path_of(path, real)) return std::nullopt;
  if (!contains(fs::path(real))) return "outside";
  if (S_ISREG(own.st_mode) && own.st_nlink > 1) return "hardlink";
  return std::nullopt;
}

core::Result<void> Root::check_descriptor(int fd, const std::string& requested) const {
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  char buffer[PATH_MAX + 1];
  const ssize_t n = ::readlink(link.c_str(), buffer, PATH_MAX);
  if (n <= 0) return core::ok();  // no /proc: the fstat comparison still holds
  if (!contains(fs::path(std::string(buffer, static_cast<std::size_t>(n)))))
    return refused(requested, "outside", "it moved outside the run's working directory while being opened");
  return core::ok();
}

core::Result<OpenedFile> Root::open_file(std::string_view requested) const {
  auto resolved = resolve(requested);
  if (!resolved) return resolved.failure();
  const auto& info = resolved->info;
  if (S_ISDIR(info.st_mode))
    return core::fail(ErrorCode::validation, "'" + resolved->relative + "' is a directory, not a file",
                      {{"path", resolved->relative}, {"reason", "directory"}});
  if (!S_ISREG(info.st_mode))
    return core::fail(ErrorCode::validation, "'" + resolved->relative + "' is not a regular file",
                      {{"path", resolved->relative}, {"reason", "special_file"}});
  if (info.st_nlink > 1)
    return refused(requested, "hardlink",
                   "the file has " + std::to_string(info.st_nlink) +
                       " hard links, and another of them may lie outside the working directory");
  FileDescriptor fd(::open(resolved->absolute.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) {
    if (errno == ELOOP) return refused(requested, "symlink_swapped", "it became a symlink while being opened");
    return core::fail(ErrorCode::validation, "cannot open '" + resolved->relative + "': " + std::strerror(errno),
                      {{"path", resolved->relative}});
  }
  struct stat opened {};
  if (::fstat(fd.get(), &opened) != 0)
    return core::fail(ErrorCode::internal, "fstat failed on '" + resolved->relative + "'");
  if (opened.st_dev != info.st_dev || opened.st_ino != info.st_ino || !S_ISREG(opened.st_mode))
    return refused(requested, "replaced", "it was replaced while being opened");
  if (opened.st_nlink > 1) return refused(requested, "hardlink", "the file has several hard links");
  if (auto ok = check_descriptor(fd.get(), std::string(requested)); !ok) return ok.failure();
  OpenedFile out;
  out.fd = std::move(fd);
  out.relative = resolved->relative;
  out.size = static_cast<std::uint64_t>(opened.st_size);
  out.modified_ms = static_cast<std::int64_t>(opened.st_mtim.tv_sec) * 1000 + opened.st_mtim.tv_nsec / 1000000;
  return out;
}

core::Result<FileDescriptor> Root::open_directory(const ResolvedPath& resolved) const {
  if (!S_ISDIR(resolved.info.st_mode))
    return core::fail(ErrorCode::validation, "'" + resolved.relative + "' is not a directory",
                      {{"path", resolved.relative}, {"reason", "not_directory"}});
  FileDescriptor fd(::open(resolved.absolute.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ELOOP || errno == ENOTDIR)
      return refused(resolved.relative, "symlink_swapped", "it became a symlink while being opened");
    return core::fail(ErrorCode::validation, "cannot open '" + resolved.relative + "': " + std::strerror(errno),
                      {{"path", resolved.relative}});
  }
  struct stat opened {};
  if (::fstat(fd.get(), &opened) != 0 || opened.st_dev != resolved.info.st_dev ||
      opened.st_ino != resolved.info.st_ino)
    return refused(resolved.relative, "replaced", "it was replaced while being opened");
  if (auto ok = check_descriptor(fd.get(), resolved.relative); !ok) return ok.failure();
  return fd;
}

}  // namespace agentry::workspace
