#pragma once
// Identifiers minted by agentry. Run ids are short and URL-safe so they can appear in
// paths, branch names and shell commands without quoting. They start with the time they
// were minted so that they sort by creation: every index keyed by run id (runs, tasks,
// audit and timeline rows) then grows at its end instead of touching a random page per
// insert. Nothing reads the time back out of an id: ids of other shapes (older agentry's
// 10 random characters, imported ones) are as valid as these.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::core {

/// Base36 seconds since run_id_epoch_unix_seconds, fixed width: good until 2094.
inline constexpr std::size_t run_id_time_length = 6;
/// Random base36 characters after the time: about 41 bits, drawn anew for every id.
inline constexpr std::size_t run_id_random_length = 8;
inline constexpr std::size_t run_id_length = run_id_time_length + run_id_random_length;
/// 2025-01-01T00:00:00Z.
inline constexpr std::int64_t run_id_epoch_unix_seconds = 1'735'689'600;

/// 14 characters of [0-9a-z]: the time now, then random characters (new_run_id_at).
std::string new_run_id();
/// A run id minted at `unix_ms`: ids minted in a later second sort after it (byte order).
/// Times before the epoch or past its 6 characters are clamped, so the width never changes.
/// Access is governed by tokens, not by the secrecy of an id: the random part keeps ids
/// unguessable enough for URLs and branch names and makes two ids of one second
/// unlikely to meet (about 1 in 10^5 for 5,000 ids in the same second).
std::string new_run_id_at(std::int64_t unix_ms);
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
