#pragma once
// The file of the daemon's Unix socket (HttpServer::listen_local binds it): what may be
// in its way when the daemon starts, and taking it away when it stops.
//   - A path longer than a socket address holds (sun_path) cannot be bound: refused,
//     with its length.
//   - A socket file that a killed daemon left behind answers nobody: it is replaced.
//   - A socket that a live daemon answers on is not stolen: refused, like a TCP port in
//     use.
//   - Anything else at that path (a file, a directory) is not ours to delete: refused.
// No Asio here: the CLI checks a path with these too.

#include "core/result.hpp"

#include <cstddef>
#include <filesystem>
#include <string>

#include <sys/types.h>

namespace agentry::api {

/// The longest path a Unix socket may have: sockaddr_un's sun_path less its NUL (107 on
/// Linux).
std::size_t max_socket_path_length();

/// "unix:///abs/path.sock": how a socket is named in URLs, messages and logs.
std::string unix_url(const std::filesystem::path& path);

/// VALIDATION_FAILED when `path` is not absolute or is too long to bind.
core::Result<void> check_socket_path(const std::filesystem::path& path);

/// Makes `path` free to bind: nothing there, or a stale socket file (removed). CONFLICT
/// when a live process accepts connections on it, or something that is not a socket
/// is there.
core::Result<void> clear_socket_path(const std::filesystem::path& path);

/// The socket file this process bound, removed by remove() or on destruction: only if it
/// is still that file (same device and inode), so that a daemon which found it stale
/// and replaced it keeps its own.
class SocketFile {
 public:
  /// Remembers the file now at `path` (just bound).
  explicit SocketFile(std::filesystem::path path);
  ~SocketFile() { remove(); }
  SocketFile(const SocketFile&) = delete;
  SocketFile& operator=(const SocketFile&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// Idempotent.
  void remove();

 private:
  std::filesystem::path path_;
  dev_t device_ = 0;
  ino_t inode_ = 0;
  bool present_ = false;
};

}  // namespace agentry::api
