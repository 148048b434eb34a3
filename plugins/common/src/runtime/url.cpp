#include "agentry/plugin_common/runtime/url.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

namespace agentry::plugin_common::runtime {

namespace urls = boost::urls;

namespace {

std::string_view default_port(std::string_view scheme) {
  return scheme == "https" || scheme == "wss" ? "443" : "80";
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// "http:// or https://".
std::string scheme_list(std::initializer_list<std::string_view> schemes) {
  std::string out;
  std::size_t left = schemes.size();
  for (std::string_view s : schemes) {
    out += std::string(s) + "://";
    --left;
    if (left > 1) out += ", ";
    else if (left == 1) out += " or ";
  }
  return out;
}

}  // namespace

std::string NetUrl::host_header() const {
  std::string out = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  if (port != default_port(scheme)) out += ":" + port;
  return out;
}

std::optional<NetUrl> parse_net_url(std::string_view text, std::initializer_list<std::string_view> schemes,
                                    std::string& error, UrlProblem* problem) {
  const auto fail = [&](UrlProblem p, std::string why) -> std::optional<NetUrl> {
    error = std::move(why);
    if (problem) *problem = p;
    return std::nullopt;
  };
  if (problem) *problem = UrlProblem::none;
  const auto parsed = urls::parse_uri(text);
  if (!parsed) {
    // A scheme it does not take is the likelier mistake than bad syntax: say that first.
    const std::string head = lower(text.substr(0, text.find("://")));
    bool known = false;
    for (std::string_view s : schemes) known = known || head == s;
    if (!known) return fail(UrlProblem::scheme, "must begin with " + scheme_list(schemes));
    return fail(UrlProblem::syntax, "is not a valid URL (" + parsed.error().message() + ")");
  }
  const urls::url_view& url = *parsed;
  NetUrl out;
  out.scheme = lower(url.scheme());
  bool known = false;
  for (std::string_view s : schemes) known = known || out.scheme == s;
  if (!known || !url.has_authority()) return fail(UrlProblem::scheme, "must begin with " + scheme_list(schemes));
  if (url.has_userinfo())
    return fail(UrlProblem::user_info, "must not carry user info (user:password@)");
  if (url.has_fragment()) return fail(UrlProblem::fragment, "must not have a fragment (#...)");
  if (url.host_type() == urls::host_type::ipvfuture) return fail(UrlProblem::host, "has a host it cannot connect to");
  out.host = url.host_address();
  if (out.host.empty()) return fail(UrlProblem::host, "has no host");
  // Boost.URL 1.81 reads "h:8o/" as port 8 and a path "o/": after an authority the path
  // must begin with "/", so anything else means the port had more than digits.
  const std::string_view path = url.encoded_path();
  if (!path.empty() && path.front() != '/')
    return fail(UrlProblem::port, "has an invalid port \"" + std::string(url.port()) + std::string(path.substr(0, path.find('/'))) + "\"");
  if (url.has_port() && !url.port().empty()) {
    if (url.port_number() == 0) return fail(UrlProblem::port, "has an invalid port \"" + std::string(url.port()) + "\"");
    out.port = url.port();
    out.port_given = true;
  } else {
    out.port = default_port(out.scheme);
  }
  out.target = url.encoded_target();
  if (out.target.empty() || out.target.front() != '/') out.target.insert(0, "/");
  return out;
}

}  // namespace agentry::plugin_common::runtime
