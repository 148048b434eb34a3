#include "support/agent_binaries.hpp"

#include <cstdlib>
#include <fstream>

#include <unistd.h>

#ifndef AGENTRY_AGENTS_PIN
#error "AGENTRY_AGENTS_PIN must be defined (tests/support/CMakeLists.txt reads it from scripts/install-agents.sh)"
#endif

namespace agentry::test {

namespace fs = std::filesystem;

namespace {

const char* non_empty_env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

bool executable(const fs::path& path) { return ::access(path.c_str(), X_OK) == 0; }

// `key` from $key, else from the paths.env the install script wrote; only if executable.
std::optional<fs::path> installed(const std::string& key) {
  if (const char* bin = non_empty_env(key.c_str())) return executable(bin) ? std::optional<fs::path>(bin) : std::nullopt;
  std::ifstream in(agents_pin_dir() / "paths.env");
  const std::string prefix = key + "=";
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) {
      const fs::path bin = line.substr(prefix.size());
      return executable(bin) ? std::optional<fs::path>(bin) : std::nullopt;
    }
  return std::nullopt;
}

}  // namespace

fs::path agents_pin_dir() {
  fs::path root;
  if (const char* dir = non_empty_env("AGENTRY_AGENTS_DIR"))
    root = dir;
  else if (const char* cache = non_empty_env("XDG_CACHE_HOME"))
    root = fs::path(cache) / "agentry/agents";
  else if (const char* home = non_empty_env("HOME"))
    root = fs::path(home) / ".cache/agentry/agents";
  return root / AGENTRY_AGENTS_PIN;
}

std::optional<fs::path> codex_binary() { return installed("AGENTRY_CODEX_BIN"); }

std::optional<fs::path> claude_binary() { return installed("AGENTRY_CLAUDE_BIN"); }

std::optional<fs::path> agent_binary(const std::string& key) { return installed(key); }

std::string not_installed_banner(std::string_view agent) {
  return not_installed_banner_for_key(agent, agent == "codex" ? "AGENTRY_CODEX_BIN" : "AGENTRY_CLAUDE_BIN");
}

std::string not_installed_banner_for_key(std::string_view agent, const std::string& key) {
  const char* bin = non_empty_env(key.c_str());
  const std::string looked = bin != nullptr ? "$" + key + "=" + bin + " (not executable)"
                                            : (agents_pin_dir() / "paths.env").string();
  return "\n################################################################################\n"
         "# SKIPPED: the pinned " + std::string(agent) + " binary is not installed (" AGENTRY_AGENTS_PIN ").\n"
         "# Run scripts/install-agents.sh, or set " + key + " to its binary.\n"
         "# Looked at: " + looked + "\n"
         "################################################################################\n";
}

}  // namespace agentry::test
