// The real agent binaries the end-to-end tests drive: the pinned Codex and Claude Code
// that scripts/install-agents.sh installs into its cache (found here, never installed).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::test {

/// The install directory of the pinned pair, as scripts/install-agents.sh computes it:
/// ${AGENTRY_AGENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/agentry/agents}/<pin>. The pin
/// ("codex-<v>_claude-code-<v>") is read from the script when CMake configures.
[[nodiscard]] std::filesystem::path agents_pin_dir();

/// The native codex binary: $AGENTRY_CODEX_BIN, else AGENTRY_CODEX_BIN in
/// <agents_pin_dir()>/paths.env. nullopt when neither names an executable.
[[nodiscard]] std::optional<std::filesystem::path> codex_binary();
/// The native claude binary, the same way with AGENTRY_CLAUDE_BIN.
[[nodiscard]] std::optional<std::filesystem::path> claude_binary();

/// Any agent install-agents.sh pins, by its paths.env key (AGENTRY_GEMINI_BIN, ...), the same way.
[[nodiscard]] std::optional<std::filesystem::path> agent_binary(const std::string& key);

/// The loud banner for GTEST_SKIP when `agent` ("codex" or "claude") is not installed,
/// saying how to install it.
[[nodiscard]] std::string not_installed_banner(std::string_view agent);
/// The same for the agent behind paths.env key `key`.
[[nodiscard]] std::string not_installed_banner_for_key(std::string_view agent, const std::string& key);

}  // namespace agentry::test
