#include "api/browser_guard.hpp"

#include "core/text.hpp"
#include "core/web_origin.hpp"

#include <charconv>

namespace agentry::api {
namespace {

using core::host_name_of;
using core::normalized_origin;


bool is_ipv4_loopback(std::string_view host) {
  // 127.0.0.0/8 as four decimal octets.
  int octets = 0;
  std::string_view rest = host;
  unsigned first = 0;
  while (true) {
    auto dot = rest.find('.');
    auto part = rest.substr(0, dot);
    unsigned value = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || part.size() > 3 || ec != std::errc{} || end != part.data() + part.size() || value > 255)
      return false;
    if (octets == 0) first = value;
    ++octets;
    if (dot == std::string_view::npos) break;
    rest.remove_prefix(dot + 1);
  }
  return octets == 4 && first == 127;
}

bool is_loopback_name(const std::string& host) {
  auto ends_with = [&](std::string_view suffix) {
    return host.size() >= suffix.size() && host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  // Browsers resolve localhost and *.localhost to loopback themselves (RFC 6761).
  return host == "localhost" || ends_with(".localhost") || host == "::1" || is_ipv4_loopback(host);
}

bool is_mutating(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

HttpResponse forbidden(std::string message, boost::json::object details) {
  return error_response(core::ErrorCode::forbidden, std::move(message), std::move(details));
}

}  // namespace

bool is_attachment_upload(std::string_view method, std::string_view path) {
  constexpr std::string_view prefix = "/api/runs/", suffix = "/attachments";
  if (method != "POST" || path.size() <= prefix.size() + suffix.size()) return false;
  if (path.substr(0, prefix.size()) != prefix || path.substr(path.size() - suffix.size()) != suffix) return false;
  return path.substr(prefix.size(), path.size() - prefix.size() - suffix.size()).find('/') == std::string_view::npos;
}

BrowserGuard::BrowserGuard(std::string listen_host, std::vector<std::string> allowed_hosts,
                           std::vector<std::string> allowed_origins)
    : listen_host_(host_name_of(listen_host.find(':') != std::string::npos && listen_host.front() != '['
                                    ? "[" + listen_host + "]"
                                    : listen_host)),
      allowed_hosts_(std::move(allowed_hosts)),
      allowed_origins_(std::move(allowed_origins)) {}

bool BrowserGuard::host_allowed(const std::string& host) const {
  if (host.empty()) return false;
  if (is_loopback_name(host)) return true;
  if (host == listen_host_ && host != "0.0.0.0" && host != "::") return true;
  return std::find(allowed_hosts_.begin(), allowed_hosts_.end(), host) != allowed_hosts_.end();
}

bool BrowserGuard::origin_allowed(const std::string& origin, const std::string& host_header) const {
  const std::string normalized = normalized_origin(origin);
  if (normalized.empty()) return false;  // "null" (sandboxed frames, files) and garbage
  // The daemon's own origin: the page was served by this daemon under this Host.
  if (!host_header.empty() && (normalized == normalized_origin("http://" + host_header) ||
                               normalized == normalized_origin("https://" + host_header)))
    return true;
  return std::find(allowed_origins_.begin(), allowed_origins_.end(), normalized) != allowed_origins_.end();
}

std::optional<HttpResponse> BrowserGuard::refusal(const HttpRequest& request, bool websocket_upgrade) const {
  const std::string* host = request.header("host");
  if (host && !host_allowed(host_name_of(*host)))
    return forbidden("this daemon does not answer to host '" + *host +
                         "'; reach it as 127.0.0.1 or localhost, or list the name in AGENTRY_ALLOWED_HOSTS",
                     {{"header", "Host"}});
  if (const std::string* origin = request.header("origin")) {
    if (!origin_allowed(*origin, host ? *host : std::string()))
      return forbidden(std::string(websocket_upgrade ? "WebSocket connections" : "requests") + " from origin '" +
                           *origin + "' are refused; list it in AGENTRY_ALLOWED_ORIGINS to let its pages in",
                       {{"header", "Origin"}});
  } else if (const std::string* site = request.header("sec-fetch-site");
             site && core::ascii_lower(*site) == "cross-site") {
    // A page's <img>, <script> or link to the daemon: a browser, sending no Origin.
    return forbidden("cross-site requests are refused", {{"header", "Sec-Fetch-Site"}});
  }
  // An attachment upload's body is the file, of any type. The custom header it must
  // carry is what no form or simple request can send: a page would need a CORS
  // preflight, which the daemon never grants. The header exempts that route only: on
  // any other, a body that is not JSON is refused whatever else comes with it.
  const bool upload =
      is_attachment_upload(request.method, request.path) && request.header(upload_header_);
  if (is_mutating(request.method) && !upload) {
    const std::string* type = request.header("content-type");
    const bool json =
        type && core::ascii_lower(core::trim_blanks(std::string_view(*type).substr(0, type->find(';')))) ==
                    "application/json";
    if ((type && !json) || (!type && !request.body.empty())) {
      auto response = error_response(core::ErrorCode::invalid_request,
                                     "a " + request.method + " request with a body must send it as " +
                                         "'Content-Type: application/json'",
                                     {{"header", "Content-Type"}});
      response.status = 415;
      return response;
    }
  }
  return std::nullopt;
}

}  // namespace agentry::api
