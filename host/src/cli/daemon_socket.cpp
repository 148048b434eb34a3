#include "cli/daemon_socket.hpp"

#include "api/local_socket.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>
#include <system_error>

#include <sys/stat.h>

namespace agentry::cli {
namespace fs = std::filesystem;

core::Result<std::optional<DaemonSocket>> daemon_socket(const core::Settings& settings, const Paths& paths) {
  if (settings.socket == "none") return std::optional<DaemonSocket>();
  DaemonSocket socket;
  socket.is_default = settings.socket.empty();
  socket.path = socket.is_default ? paths.home / "socket" / "agentry.sock" : fs::absolute(settings.socket);
  socket.path = socket.path.lexically_normal();
  if (auto checked = api::check_socket_path(socket.path); !checked) {
    // A long home is no reason not to serve: without the default socket only sandboxed
    // agents with no network lose their way back (docs/environments.md).
    if (socket.is_default) {
      std::cerr << "agentry serve: not listening on a Unix socket: " << checked.error().message
                << " (set one with --socket PATH)\n";
      return std::optional<DaemonSocket>();
    }
    return core::fail(core::ErrorCode::validation,
                      checked.error().message + " with --socket PATH (AGENTRY_SOCKET), or listen on none with "
                                                "--socket none");
  }
  return std::optional<DaemonSocket>(std::move(socket));
}

core::Result<void> prepare_socket_directory(const DaemonSocket& socket) {
  const fs::path dir = socket.path.parent_path();
  std::error_code ec;
  const bool created = fs::create_directories(dir, ec);
  if (ec)
    return core::fail(core::ErrorCode::internal,
                      "cannot create the directory of the Unix socket, " + dir.string() + ": " + ec.message());
  if ((created || socket.is_default) && ::chmod(dir.c_str(), 0700) != 0)
    return core::fail(core::ErrorCode::internal, "cannot make the directory of the Unix socket, " + dir.string() +
                                                     ", private (0700): " + std::strerror(errno));
  return core::ok();
}

}  // namespace agentry::cli
