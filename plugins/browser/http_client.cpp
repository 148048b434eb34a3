#include "browser/http_client.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <openssl/ssl.h>

#include <cctype>

namespace agentry::browser {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

namespace {

constexpr auto kAwait = asio::as_tuple(asio::use_awaitable);
// How often a waiting call looks at its cancel check: the bound on an interrupt's delay.
constexpr auto kPollEvery = std::chrono::milliseconds(10);

// What the coroutine reports back; owned by http_post, which outlives the io_context.
struct Outcome {
  int status = 0;
  std::string body;
  std::string error;
  bool done = false;
};

http::request<http::string_body> build(const HttpUrl& url, const HttpRequest& request) {
  http::request<http::string_body> req{http::verb::post, url.target, 11};
  std::string host = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
  if (url.port != (url.tls ? "443" : "80")) host += ":" + url.port;
  req.set(http::field::host, host);
  req.set(http::field::content_type, "application/json");
  req.set(http::field::accept, "application/json");
  req.set(http::field::user_agent, "agentry-browser");
  req.set(http::field::connection, "close");
  for (const auto& [name, value] : request.headers) req.set(name, value);
  req.body() = request.body;
  req.prepare_payload();
  return req;
}

template <class Stream>
asio::awaitable<void> send_and_read(Stream& stream, const HttpUrl& url, const HttpRequest& request, Outcome& out) {
  auto req = build(url, request);
  if (auto [ec, n] = co_await http::async_write(stream, req, kAwait); ec) {
    out.error = "sending the request failed: " + ec.message();
    co_return;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.header_limit(64 * 1024);
  parser.body_limit(request.max_response_bytes);
  auto [ec, n] = co_await http::async_read(stream, buffer, parser, kAwait);
  if (ec && !parser.is_header_done()) {
    out.error = "no HTTP answer: " + ec.message();
    co_return;
  }
  out.status = static_cast<int>(parser.get().result_int());
  out.body = std::move(parser.get().body());
  if (ec) out.error = "the answer was cut short: " + ec.message();
}

// Everything the exchange needs lives in this coroutine's frame, so dropping the frame
// (the io_context going away on a cancel or the deadline) closes the socket.
asio::awaitable<void> exchange(HttpUrl url, const HttpRequest& request, ssl::context* tls, Outcome& out) {
  auto ex = co_await asio::this_coro::executor;
  tcp::resolver resolver(ex);
  auto [rec, endpoints] = co_await resolver.async_resolve(url.host, url.port, kAwait);
  if (rec) {
    out.error = "cannot resolve " + url.host + ": " + rec.message();
  } else if (tls == nullptr) {
    beast::tcp_stream stream(ex);
    if (auto [cec, ep] = co_await stream.async_connect(endpoints, kAwait); cec)
      out.error = "cannot connect to " + url.host + ":" + url.port + ": " + cec.message();
    else
      co_await send_and_read(stream, url, request, out);
  } else {
    beast::ssl_stream<beast::tcp_stream> stream(ex, *tls);
    // SNI for names only (RFC 6066 has no room for address literals); SSL_set_tlsext_host_name
    // is a macro with an old-style cast, hence SSL_ctrl.
    boost::system::error_code not_an_address;
    asio::ip::make_address(url.host, not_an_address);
    if (not_an_address)
      SSL_ctrl(stream.native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, url.host.data());
    stream.set_verify_callback(ssl::host_name_verification(url.host));
    if (auto [cec, ep] = co_await beast::get_lowest_layer(stream).async_connect(endpoints, kAwait); cec) {
      out.error = "cannot connect to " + url.host + ":" + url.port + ": " + cec.message();
    } else if (auto [hec] = co_await stream.async_handshake(ssl::stream_base::client, kAwait); hec) {
      out.error = "TLS handshake with " + url.host + " failed: " + hec.message();
    } else {
      co_await send_and_read(stream, url, request, out);
    }
  }
  out.done = true;
}

bool iequals_prefix(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  return true;
}

}  // namespace

std::optional<HttpUrl> parse_http_url(std::string_view url, std::string& error) {
  HttpUrl out;
  std::string_view rest;
  if (iequals_prefix(url, "http://")) {
    rest = url.substr(7);
  } else if (iequals_prefix(url, "https://")) {
    out.tls = true;
    rest = url.substr(8);
  } else {
    error = "must begin with http:// or https://";
    return std::nullopt;
  }
  if (rest.find('#') != std::string_view::npos) {
    error = "must not have a fragment (#...)";
    return std::nullopt;
  }
  const std::size_t slash = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, slash);
  out.target = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (out.target.front() == '?') out.target.insert(0, "/");
  if (authority.find('@') != std::string_view::npos) {
    error = "must not carry user info (user:password@); name the key's variable in apiKeyEnv";
    return std::nullopt;
  }
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {  // [v6]:port
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      error = "has an unclosed [ in its host";
      return std::nullopt;
    }
    out.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') {
        error = "has text after its [host]";
        return std::nullopt;
      }
      port = after.substr(1);
    }
  } else {
    const std::size_t colon = authority.rfind(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (out.host.empty()) {
    error = "has no host";
    return std::nullopt;
  }
  if (port.empty()) {
    out.port = out.tls ? "443" : "80";
  } else {
    if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string_view::npos || std::stoi(std::string(port)) == 0 ||
        std::stoi(std::string(port)) > 65535) {
      error = "has an invalid port \"" + std::string(port) + "\"";
      return std::nullopt;
    }
    out.port = std::string(port);
  }
  return out;
}

HttpResponse http_post(const HttpRequest& request, const std::function<bool()>& cancelled) {
  HttpResponse response;
  std::string why;
  auto url = parse_http_url(request.url, why);
  if (!url) {
    response.error = "the URL " + request.url + " " + why;
    return response;
  }
  std::optional<ssl::context> tls;
  if (url->tls) {
    tls.emplace(ssl::context::tls_client);
    boost::system::error_code ignored;
    tls->set_default_verify_paths(ignored);
    tls->set_verify_mode(ssl::verify_peer);
  }
  Outcome out;
  const auto deadline = std::chrono::steady_clock::now() + request.timeout;
  {
    // Declared after `out` and `tls`, so its destruction (which drops an unfinished
    // coroutine and with it the socket) comes first.
    asio::io_context ioc;
    asio::co_spawn(ioc, exchange(*url, request, tls ? &*tls : nullptr, out), [&](std::exception_ptr e) {
      if (e && !out.done) out.error = "internal error in the HTTP client";
      out.done = true;
    });
    while (!out.done) {
      if (cancelled && cancelled()) {
        response.cancelled = true;
        break;
      }
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) {
        response.timed_out = true;
        break;
      }
      ioc.run_for(std::min<std::chrono::steady_clock::duration>(kPollEvery, deadline - now));
      if (ioc.stopped() && !out.done) break;  // nothing left to run: cannot happen, but never spin
    }
  }
  if (response.cancelled) {
    response.error = "cancelled";
  } else if (response.timed_out) {
    response.error = "no answer within " + std::to_string(request.timeout.count()) + " ms";
  } else {
    response.status = out.status;
    response.body = std::move(out.body);
    response.error = std::move(out.error);
  }
  return response;
}

}  // namespace agentry::browser
