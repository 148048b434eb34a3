#include "api/local_socket.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace agentry::api {
namespace {

enum class Probe { nobody, someone, failed };

/// Whether a process accepts connections on the socket at `path`. Non-blocking, so a
/// daemon with a full backlog counts as there (EAGAIN) instead of keeping us waiting.
Probe probe(const std::string& path, int& error) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    error = errno;
    return Probe::failed;
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  error = rc == 0 ? 0 : errno;
  ::close(fd);
  if (rc == 0 || error == EAGAIN || error == EINPROGRESS) return Probe::someone;
  if (error == ECONNREFUSED || error == ENOENT) return Probe::nobody;
  return Probe::failed;
}

}  // namespace

std::size_t max_socket_path_length() { return sizeof(sockaddr_un{}.sun_path) - 1; }

std::string unix_url(const std::filesystem::path& path) { return "unix://" + path.string(); }

core::Result<void> check_socket_path(const std::filesystem::path& path) {
  if (!path.is_absolute())
    return core::fail(core::ErrorCode::validation,
                      "the Unix socket path '" + path.string() + "' is relative; give an absolute path");
  const std::size_t length = path.string().size();
  if (length > max_socket_path_length())
    return core::fail(core::ErrorCode::validation,
                      "the Unix socket path " + path.string() + " is " + std::to_string(length) +
                          " bytes long; a Unix socket's path may have at most " +
                          std::to_string(max_socket_path_length()) + " bytes: choose a shorter one");
  return core::ok();
}

core::Result<void> clear_socket_path(const std::filesystem::path& path) {
  if (auto checked = check_socket_path(path); !checked) return checked;
  const std::string where = unix_url(path);
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return core::ok();
    return core::fail(core::ErrorCode::internal, "cannot listen on " + where + ": " + std::strerror(errno));
  }
  if (!S_ISSOCK(st.st_mode))
    return core::fail(core::ErrorCode::conflict, "cannot listen on " + where +
                                                     ": something that is not a socket is there; move it away or "
                                                     "choose another socket path");
  int error = 0;
  switch (probe(path.string(), error)) {
    case Probe::someone:
      return core::fail(core::ErrorCode::conflict,
                        "cannot listen on " + where +
                            ": another process (an agentry daemon?) is listening on it; stop it, or choose another "
                            "socket path");
    case Probe::failed:
      return core::fail(core::ErrorCode::internal, "cannot listen on " + where +
                                                       ": cannot tell whether a daemon still listens there: " +
                                                       std::strerror(error));
    case Probe::nobody:
      break;
  }
  // Left behind by a daemon that did not stop cleanly (kill -9, a crash): nobody answers.
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return core::fail(core::ErrorCode::internal, "cannot replace the stale socket " + where + ": " +
                                                     std::strerror(errno));
  return core::ok();
}

SocketFile::SocketFile(std::filesystem::path path) : path_(std::move(path)) {
  struct stat st{};
  if (::lstat(path_.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) {
    device_ = st.st_dev;
    inode_ = st.st_ino;
    present_ = true;
  }
}

void SocketFile::remove() {
  if (!present_) return;
  present_ = false;
  struct stat st{};
  if (::lstat(path_.c_str(), &st) == 0 && st.st_dev == device_ && st.st_ino == inode_) ::unlink(path_.c_str());
}

}  // namespace agentry::api
