#pragma once
// Keeps web pages the user happens to visit out of the daemon. Reaching the API is
// reaching the user's shell (agents run commands), and a browser will send requests to
// 127.0.0.1 for any page; auth is off by default. So, for every request:
//   - Host must name this daemon: a loopback name or address, the listen host, or one
//     listed in AGENTRY_ALLOWED_HOSTS. Otherwise a DNS name an attacker controls that
//     resolves to 127.0.0.1 (DNS rebinding) would make the page same-origin with us.
//   - An Origin header, which browsers send on every cross-origin request, on every
//     POST and on every WebSocket handshake, must be the daemon's own origin (the
//     scheme and Host it was reached at) or be listed in AGENTRY_ALLOWED_ORIGINS.
//     Non-browser clients send none and are not affected.
//   - A request that changes something (POST, PUT, PATCH, DELETE) with a body must say
//     `Content-Type: application/json`: a page can send text/plain or form bodies
//     without asking first (no CORS preflight), but not JSON. The attachment upload
//     route alone takes any type, and only with its name header.
// docs/security.md states the threat model.

#include "api/http_message.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::api {

class BrowserGuard {
 public:
  /// `listen_host` is the address the daemon listens on. `allowed_hosts` and
  /// `allowed_origins` extend the defaults: AGENTRY_ALLOWED_HOSTS and
  /// AGENTRY_ALLOWED_ORIGINS as core::Settings has checked and normalized them
  /// (core/web_origin.hpp), host names without port and origins in lower case.
  BrowserGuard(std::string listen_host, std::vector<std::string> allowed_hosts,
               std::vector<std::string> allowed_origins);

  /// The header an attachment upload carries (lower case): ours, or on the compat
  /// listener agent-runner's (x-agent-runner-attachment-name).
  void set_upload_header(std::string lower_name) { upload_header_ = std::move(lower_name); }

  /// The refusal to send instead of handling `request`, or nothing when it may proceed.
  std::optional<HttpResponse> refusal(const HttpRequest& request, bool websocket_upgrade) const;

 private:
  bool host_allowed(const std::string& host) const;
  bool origin_allowed(const std::string& origin, const std::string& host_header) const;

  std::string listen_host_;
  std::vector<std::string> allowed_hosts_;    // lower case, without port
  std::vector<std::string> allowed_origins_;  // lower case scheme://host[:port]
  std::string upload_header_ = "x-agentry-attachment-name";
};

/// POST /api/runs/<id>/attachments (a path without the web base path): the one route
/// whose body is a file rather than JSON.
bool is_attachment_upload(std::string_view method, std::string_view path);

}  // namespace agentry::api
