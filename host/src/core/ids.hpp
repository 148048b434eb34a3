#pragma once
// Identifiers minted by agentry. Run ids are short, random and URL-safe so they
// can appear in paths, branch names and shell commands without quoting.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::core {

inline constexpr std::size_t run_id_length = 10;

/// 10 characters of [0-9a-z]: about 51 bits of randomness.
std::string new_run_id();
/// A generic random id with a readable prefix, e.g. "qm_k3x9..." for queued messages.
std::string new_prefixed_id(std::string_view prefix);
/// "daemon-<pid>-<6 random chars>-<start time>", the start time being the process's
/// (core/process_identity.hpp), so that a later process with the same pid is not taken
/// for this one; without a start time (where /proc cannot tell), "daemon-<pid>-<6 chars>".
std::string new_daemon_instance_id(long pid, std::optional<std::uint64_t> start_time);
/// "cli-<pid>-<6 random chars>-<start time>": an embedded CLI process driving runs
/// itself. Same shape as the daemon's, so reconciliation reads either the same way.
std::string new_cli_instance_id(long pid, std::optional<std::uint64_t> start_time);

/// Run ids accepted at the API boundary: 1..64 of [A-Za-z0-9_-].
bool is_valid_run_id(std::string_view id);
/// Group, task and similar user-chosen keys: 1..128 of [A-Za-z0-9_.:/-], no "..".
bool is_valid_key(std::string_view key);

}  // namespace agentry::core
