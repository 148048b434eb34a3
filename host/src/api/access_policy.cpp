#include "api/access_policy.hpp"

#include "crypto/hmac.hpp"

#include <algorithm>
#include <cctype>

namespace agentry::api {
namespace {

std::string trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

}  // namespace

bool is_protected_path(const std::string& path) {
  return path == "/api" || path.rfind("/api/", 0) == 0 || path == "/metrics" || path == "/mcp";
}

bool is_signed_delivery(const std::string& method, const std::string& path) {
  static constexpr std::string_view prefix = "/api/triggers/";
  if (method != "POST" || path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) return false;
  return path.find('/', prefix.size()) == std::string::npos;  // one segment: the trigger's name
}

core::Result<AccessPolicy> AccessPolicy::from_settings(const core::Settings& settings) {
  if (!settings.auth_enabled) return AccessPolicy(false, {});
  if (settings.daemon_token.empty())
    return core::fail(core::ErrorCode::validation,
                      "AGENTRY_DAEMON_AUTH_ENABLED is on but AGENTRY_DAEMON_TOKEN is empty; set a token or turn auth off");
  return AccessPolicy(true, settings.daemon_token);
}

std::optional<std::string> AccessPolicy::authenticate(const HttpRequest& request) const {
  if (!enabled_) return std::string();
  const auto* header = request.header("authorization");
  if (!header) return std::nullopt;
  // The scheme is case-insensitive (RFC 9110 §11.1); the token is compared as sent.
  static constexpr std::string_view scheme = "bearer ";
  if (header->size() <= scheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>((*header)[i])) != scheme[i]) return std::nullopt;
  const std::string presented = trim(header->substr(scheme.size()));
  if (crypto::constant_time_equal(presented, token_)) return std::string();
  // Only its hash is stored, so a lookup reveals nothing by its timing.
  if (run_token_lookup_)
    if (auto run = run_token_lookup_(presented)) return run;
  return std::nullopt;
}

HttpResponse AccessPolicy::refusal() {
  auto r = error_response(core::ErrorCode::unauthenticated,
                          "this daemon requires a bearer token: send 'Authorization: Bearer <token>'");
  r.headers.emplace_back("WWW-Authenticate", "Bearer");
  return r;
}

}  // namespace agentry::api
