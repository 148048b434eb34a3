#include "cli/listen_url.hpp"

#include "api/local_socket.hpp"

#include <charconv>
#include <string_view>

namespace agentry::cli {
namespace {

constexpr const char* connect_what = "--connect";

bool for_connect(const char* what) { return std::string_view(what) == connect_what; }

core::Failure bad(const std::string& text, const std::string& why, const char* what) {
  const std::string expected =
      for_connect(what) ? "ws://127.0.0.1:4773/ or unix:///path/to/agentry.sock" : "ws://127.0.0.1:4773/";
  return core::fail(core::ErrorCode::validation,
                    std::string("invalid ") + what + " URL '" + text + "': " + why + " (expected " + expected + ")");
}

/// unix:///abs/path.sock: the socket's path, which must be absolute (a relative one
/// would name a different socket in each directory a command runs in).
core::Result<ListenUrl> parse_unix_url(const std::string& text) {
  const std::string path = text.substr(std::string("unix://").size());
  if (path.empty()) return bad(text, "the socket path is missing", connect_what);
  if (path[0] != '/')
    return bad(text, "the socket path must be absolute, as in unix:///run/agentry/agentry.sock", connect_what);
  if (auto checked = api::check_socket_path(path); !checked) return bad(text, checked.error().message, connect_what);
  ListenUrl url;
  url.socket_path = path;
  return url;
}

std::string host_part(const std::string& host) { return host.find(':') != std::string::npos ? "[" + host + "]" : host; }

core::Result<ListenUrl> parse_ws_url(const std::string& text, const char* what) {
  const std::string scheme = "ws://";
  if (text.rfind(scheme, 0) != 0)
    return bad(text, for_connect(what) ? "it must start with ws:// or unix://" : "it must start with ws://", what);
  std::string rest = text.substr(scheme.size());
  auto slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos && rest.substr(slash) != "/")
    return bad(text, "a path other than / is not supported", what);
  ListenUrl url;
  std::string port_text;
  if (!authority.empty() && authority[0] == '[') {
    auto close = authority.find(']');
    if (close == std::string::npos) return bad(text, "unterminated [ in the host", what);
    url.host = authority.substr(1, close - 1);
    if (close + 1 >= authority.size() || authority[close + 1] != ':') return bad(text, "the port is missing", what);
    port_text = authority.substr(close + 2);
  } else {
    auto colon = authority.rfind(':');
    if (colon == std::string::npos) return bad(text, "the port is missing", what);
    url.host = authority.substr(0, colon);
    port_text = authority.substr(colon + 1);
  }
  if (url.host.empty()) return bad(text, "the host is missing", what);
  if (url.host == "localhost") url.host = "127.0.0.1";
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || end != port_text.data() + port_text.size() || port > 65535)
    return bad(text, "the port must be a number from 0 to 65535", what);
  url.port = static_cast<std::uint16_t>(port);
  return url;
}

}  // namespace

std::string ListenUrl::ws_url(std::uint16_t bound_port) const {
  return "ws://" + host_part(host) + ":" + std::to_string(bound_port) + "/";
}

std::string ListenUrl::http_url(std::uint16_t bound_port) const {
  return "http://" + host_part(host) + ":" + std::to_string(bound_port);
}

core::Result<ListenUrl> parse_listen_url(const std::string& text) { return parse_ws_url(text, "listen"); }

core::Result<ListenUrl> parse_connect_url(const std::string& text) {
  if (text.rfind("unix://", 0) == 0) return parse_unix_url(text);
  auto url = parse_ws_url(text, connect_what);
  if (url && url->port == 0) return bad(text, "the port must be from 1 to 65535", connect_what);
  return url;
}

}  // namespace agentry::cli
