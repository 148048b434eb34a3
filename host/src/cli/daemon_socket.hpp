#pragma once
// Where `agentry serve` puts its Unix socket, and the directory it is in. The default is
// <home>/socket/agentry.sock; --socket PATH (AGENTRY_SOCKET) chooses another, and
// `none` has the daemon listen on its TCP port alone. The default directory holds the
// socket and nothing else, and only its user may enter it (0700): environments
// bind-mount that directory into sandboxes, so nothing else of the home may be reached
// through it.

#include "cli/paths.hpp"
#include "core/result.hpp"
#include "core/settings.hpp"

#include <filesystem>
#include <optional>

namespace agentry::cli {

struct DaemonSocket {
  std::filesystem::path path;  // absolute
  bool is_default = false;     // <home>/socket/agentry.sock: its directory is ours
};

/// The socket serve listens on, or nullopt for none. VALIDATION_FAILED when the path is
/// too long for a Unix socket (saying how to choose another).
core::Result<std::optional<DaemonSocket>> daemon_socket(const core::Settings& settings, const Paths& paths);

/// Creates the socket's directory (0700) if it is missing; the default directory is made
/// 0700 even when it exists. Another existing directory is the user's and is left as it is.
core::Result<void> prepare_socket_directory(const DaemonSocket& socket);

}  // namespace agentry::cli
