// The URLs a backend is configured with (a model API's base URL, an app-server's ws://
// address), parsed once by Boost.URL into what a client connects to. Credentials and
// fragments are refused rather than dropped: a key belongs in a header or a token file,
// and a fragment never reaches a server, so either is a configuration mistake.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::plugin_common::runtime {

struct NetUrl {
  std::string scheme;       // lower case: "http", "https", "ws", "wss"
  std::string host;         // decoded; an IPv6 literal without its brackets
  std::string port;         // as written, else the scheme's default
  bool port_given = false;  // a caller that insists on an explicit port checks this
  std::string target;       // path and query, at least "/"

  bool tls() const noexcept { return scheme == "https" || scheme == "wss"; }
  // The Host header: brackets around an IPv6 literal, the port unless it is the default.
  std::string host_header() const;
};

enum class UrlProblem { none, syntax, scheme, user_info, fragment, host, port };

// `text` as one of `schemes` (each of http, https, ws, wss), or nullopt with `error` set
// to a phrase that follows the URL in a message ("must begin with http:// or https://")
// and `problem` (when given) saying which rule it broke.
std::optional<NetUrl> parse_net_url(std::string_view text, std::initializer_list<std::string_view> schemes,
                                    std::string& error, UrlProblem* problem = nullptr);

}  // namespace agentry::plugin_common::runtime
