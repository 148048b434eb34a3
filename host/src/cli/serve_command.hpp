#pragma once
// `agentry serve`: the local control plane.

#include "core/settings.hpp"

#include <string>

namespace agentry::cli {

struct ServeOptions {
  std::string listen = "ws://127.0.0.1:4773/";
  std::string socket;     // --socket: AGENTRY_SOCKET
  std::string name;       // --name: AGENTRY_DAEMON_NAME
  std::string advertise;  // --advertise: AGENTRY_ADVERTISE_URL
};

/// Runs the daemon until SIGINT (returns 130) or SIGTERM (returns 0).
/// `settings`: parsed once at start (core/settings.hpp).
int run_serve(const ServeOptions& options, const core::Settings& settings);

}  // namespace agentry::cli
