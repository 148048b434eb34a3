#include "cli/programs.hpp"

#include <unistd.h>

namespace agentry::cli {
namespace fs = std::filesystem;

namespace {

bool executable_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::optional<fs::path> find_program(const std::string& name, const std::string& path_variable) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) {
    if (executable_file(name)) return fs::absolute(name);
    return std::nullopt;
  }
  std::string::size_type start = 0;
  while (start <= path_variable.size()) {
    auto colon = path_variable.find(':', start);
    auto dir = path_variable.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!dir.empty()) {
      fs::path candidate = fs::path(dir) / name;
      if (executable_file(candidate)) return candidate;
    }
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return std::nullopt;
}

const std::vector<BackendProgram>& backend_programs() {
  // The names and variables the plugins themselves use (plugins/*/config.cpp, launch.cpp,
  // browser/settings.cpp); the install hints are docs/backends/*.md's.
  static const std::vector<BackendProgram> programs{
      {"codex", "AGENTRY_CODEX_BIN", "codex", "npm install -g @openai/codex (or scripts/install-agents.sh)"},
      {"claude", "AGENTRY_CLAUDE_BIN", "claude",
       "npm install -g @anthropic-ai/claude-code (or scripts/install-agents.sh)"},
      {"cursor", "AGENTRY_CURSOR_BIN", "cursor-agent",
       "install Cursor's CLI: curl https://cursor.com/install -fsS | bash"},
      {"pi", "AGENTRY_PI_BIN", "pi", "npm install -g @mariozechner/pi-coding-agent"},
      {"browser", "AGENTRY_CHROMIUM", "chromium", "apt-get install chromium"},
  };
  return programs;
}

}  // namespace agentry::cli
