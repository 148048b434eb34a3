#pragma once
// `agentry serve`: the local control plane.

#include <string>

namespace agentry::cli {

struct ServeOptions {
  std::string listen = "ws://127.0.0.1:4773/";
};

/// Runs the daemon until SIGINT (returns 130) or SIGTERM (returns 0).
int run_serve(const ServeOptions& options);

}  // namespace agentry::cli
