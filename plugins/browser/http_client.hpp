// A small blocking HTTP/1.1 client for the model API: one POST per connection over http://
// or https:// (Beast, OpenSSL), with a whole-call deadline and a cancel check, so a model
// call never outlives an interrupt of the attempt or the destruction of the instance.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentry::browser {

struct HttpUrl {
  bool tls = false;
  std::string host;    // without the brackets of an IPv6 literal
  std::string port;    // "80" / "443" unless given
  std::string target;  // path and query, at least "/"
};

// The parts of an http:// or https:// URL, or nullopt with `error` saying what is wrong.
// User info (user:pass@) and fragments are refused: a key belongs in a header.
std::optional<HttpUrl> parse_http_url(std::string_view url, std::string& error);

struct HttpRequest {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // sent as application/json
  std::chrono::milliseconds timeout{120000};  // the whole call: connect, send, answer
  std::size_t max_response_bytes = 16 * 1024 * 1024;
};

struct HttpResponse {
  int status = 0;      // 0: no HTTP answer; `error` says why
  std::string body;
  std::string error;   // a transport failure, the deadline, or the cancel
  bool timed_out = false;
  bool cancelled = false;
};

// [any thread; blocks] POSTs the request and waits for the whole answer. `cancelled` is
// polled every few milliseconds; once it answers true the connection is dropped and the
// call returns (cancelled = true) without waiting for the server.
HttpResponse http_post(const HttpRequest& request, const std::function<bool()>& cancelled);

}  // namespace agentry::browser
