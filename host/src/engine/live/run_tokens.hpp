#pragma once
// Per-run tokens. With auth on, an agent must be able to call back (its tasks, its
// queue, child runs) without ever holding the daemon's token: each session's launch
// mints a random token, the agent gets it as AGENTRY_DAEMON_TOKEN, the store keeps only
// its SHA-256, and the session's end revokes it. What such a token may reach is decided
// by the API (api/run_scope.hpp).

#include "core/result.hpp"

#include <optional>
#include <string>

namespace agentry::store {
class Store;
}  // namespace agentry::store

namespace agentry::engine {

/// "agr_" + 43 characters of base64url (256 random bits).
std::string new_run_token();
/// Lower-case hex SHA-256.
std::string token_sha256(std::string_view token);

/// Mints a token for `run_id` and stores its hash; the token itself is returned once.
core::Result<std::string> issue_run_token(store::Store& db, const std::string& run_id);
/// The run a token belongs to, while its session lives. (The write that ends a session
/// revokes its tokens: engine/live/attempt_events.cpp.)
std::optional<std::string> run_of_token(store::Store& db, std::string_view token);

}  // namespace agentry::engine
