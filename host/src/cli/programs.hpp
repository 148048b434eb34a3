#pragma once
// Programs agentry needs on this machine: finding one the way a shell would (PATH), and
// which agent CLI each bundled backend starts (and the variable that names another).
// Shared by `doctor` (is it there, which version) and `service install` (the variables
// a service must keep so that its backends find the same programs).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentry::cli {

/// `name` when it contains a '/' and is an executable file, else the first executable
/// `<dir>/<name>` of the colon-separated `path_variable`; nullopt when none is.
std::optional<std::filesystem::path> find_program(const std::string& name, const std::string& path_variable);

/// The program a bundled backend runs unless an agent's backendConfig names another.
struct BackendProgram {
  std::string backend;       // the backend id, e.g. "codex"
  std::string variable;      // the variable that names another program, e.g. AGENTRY_CODEX_BIN
  std::string default_name;  // looked up in PATH when the variable is unset
  std::string install_hint;  // how to get it, for a fix line
};

const std::vector<BackendProgram>& backend_programs();

}  // namespace agentry::cli
