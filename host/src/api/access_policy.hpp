#pragma once
// Opt-in bearer-token protection of the daemon API, from core::Settings:
//   AGENTRY_DAEMON_AUTH_ENABLED  true/1/yes/on (trimmed, any case) turns it on
//   AGENTRY_DAEMON_TOKEN         the shared token; must be non-empty when enabled
// Every /api/ route, /metrics, every event stream, the MCP endpoint (/mcp) and the
// WebSocket handshake then need `Authorization: Bearer <token>`; /app-config.json and
// static files stay public, and trigger deliveries are checked by their own signature
// (is_signed_delivery).
// The token is compared in constant time and never logged.

#include "api/http_message.hpp"
#include "core/result.hpp"
#include "core/settings.hpp"

#include <functional>
#include <optional>
#include <string>

namespace agentry::api {

class AccessPolicy {
 public:
  /// VALIDATION_FAILED when auth is on without a usable token. Checked here rather than
  /// when the settings are parsed: only `serve` needs the token to be there.
  static core::Result<AccessPolicy> from_settings(const core::Settings& settings);
  static AccessPolicy open() { return AccessPolicy(false, {}); }

  bool enabled() const { return enabled_; }
  /// Finds the run a per-run token belongs to (engine/live/run_tokens.hpp). Must outlive the policy.
  using RunTokenLookup = std::function<std::optional<std::string>(std::string_view token)>;
  void set_run_token_lookup(RunTokenLookup lookup) { run_token_lookup_ = std::move(lookup); }

  /// nullopt when `request` is refused. Otherwise the one run it is limited to: empty for
  /// auth off or the daemon's token, the run id for that run's own token.
  std::optional<std::string> authenticate(const HttpRequest& request) const;
  /// The 401 envelope for a refused request.
  static HttpResponse refusal();

 private:
  AccessPolicy(bool enabled, std::string token) : enabled_(enabled), token_(std::move(token)) {}
  bool enabled_;
  std::string token_;
  RunTokenLookup run_token_lookup_;
};

/// True when the request path needs a token (the API and its streams).
bool is_protected_path(const std::string& path);
/// POST /api/triggers/<name>: a trigger delivery, authenticated by its HMAC signature
/// (api/trigger_signature.hpp) instead of the bearer token, which a webhook sender
/// such as GitHub cannot send.
bool is_signed_delivery(const std::string& method, const std::string& path);

}  // namespace agentry::api
