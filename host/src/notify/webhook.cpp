#include "notify/webhook.hpp"

#include "core/notify_target.hpp"
#include "core/utf8.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <openssl/ssl.h>

#include <optional>

namespace agentry::notify {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

namespace {

constexpr auto tuple_awaitable = asio::as_tuple(asio::use_awaitable);

struct Exchange {
  const core::HttpUrl& url;
  const WebhookRequest& request;
  const WebhookLimits& limits;
  ssl::context* tls;
  WebhookResult& out;
  bool& finished;
};

http::request<http::string_body> make_request(const Exchange& x) {
  http::request<http::string_body> req{http::verb::post, x.url.target, 11};
  const bool default_port = x.url.port == (x.url.tls ? "443" : "80");
  const bool v6 = x.url.host.find(':') != std::string::npos;
  std::string host = v6 ? "[" + x.url.host + "]" : x.url.host;
  req.set(http::field::host, default_port ? host : host + ":" + x.url.port);
  req.set(http::field::content_type, "application/json");
  req.set(http::field::connection, "close");
  for (const auto& [name, value] : x.request.headers) req.set(name, value);
  req.body() = x.request.body;
  req.prepare_payload();
  return req;
}

void judge(const Exchange& x, const http::response_parser<http::string_body>& parser, beast::error_code ec) {
  if (!parser.is_header_done()) {
    x.out.error = "no HTTP answer: " + ec.message();
    return;
  }
  // A body over the cap is not read further; the status line is what counts.
  const auto& res = parser.get();
  x.out.status = static_cast<int>(res.result_int());
  if (x.out.status >= 200 && x.out.status < 300) {
    x.out.delivered = true;
    return;
  }
  std::string excerpt = core::sanitize_utf8(std::string_view(res.body()).substr(0, 200));
  x.out.error = "HTTP " + std::to_string(x.out.status) +
                (x.out.status >= 300 && x.out.status < 400 ? " (redirects are not followed)" : "") +
                (excerpt.empty() ? "" : ": " + excerpt);
}

template <class Stream>
asio::awaitable<void> talk(const Exchange& x, Stream& stream) {
  auto req = make_request(x);
  auto [wec, written] = co_await http::async_write(stream, req, tuple_awaitable);
  (void)written;
  if (wec) {
    x.out.error = "sending failed: " + wec.message();
    co_return;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.header_limit(16 * 1024);
  parser.body_limit(x.limits.max_response_bytes);
  auto [rec, read] = co_await http::async_read(stream, buffer, parser, tuple_awaitable);
  (void)read;
  judge(x, parser, rec);
}

asio::awaitable<void> deliver(Exchange x) {
  auto ex = co_await asio::this_coro::executor;
  tcp::resolver resolver(ex);
  auto [rec, endpoints] = co_await resolver.async_resolve(x.url.host, x.url.port, tuple_awaitable);
  if (rec) {
    x.out.error = "cannot resolve " + x.url.host + ": " + rec.message();
    x.finished = true;
    co_return;
  }
  if (!x.tls) {
    beast::tcp_stream stream(ex);
    stream.expires_after(x.limits.connect_timeout);
    auto [cec, ep] = co_await stream.async_connect(endpoints, tuple_awaitable);
    (void)ep;
    if (cec) {
      x.out.error = "cannot connect to " + x.url.redacted + ": " + cec.message();
    } else {
      stream.expires_never();  // the total deadline (run_for) still holds
      co_await talk(x, stream);
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    x.finished = true;
    co_return;
  }
  beast::ssl_stream<beast::tcp_stream> stream(ex, *x.tls);
  // SNI (SSL_set_tlsext_host_name is a macro with a C cast).
  if (!SSL_ctrl(stream.native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                const_cast<char*>(x.url.host.c_str()))) {
    x.out.error = "cannot set TLS server name " + x.url.host;
    x.finished = true;
    co_return;
  }
  stream.set_verify_callback(ssl::host_name_verification(x.url.host));
  beast::get_lowest_layer(stream).expires_after(x.limits.connect_timeout);
  auto [cec, ep] = co_await beast::get_lowest_layer(stream).async_connect(endpoints, tuple_awaitable);
  (void)ep;
  if (cec) {
    x.out.error = "cannot connect to " + x.url.redacted + ": " + cec.message();
    x.finished = true;
    co_return;
  }
  auto [hec] = co_await stream.async_handshake(ssl::stream_base::client, tuple_awaitable);
  if (hec) {
    x.out.error = "TLS handshake with " + x.url.host + " failed: " + hec.message();
    x.finished = true;
    co_return;
  }
  beast::get_lowest_layer(stream).expires_never();
  co_await talk(x, stream);
  x.finished = true;
}

}  // namespace

WebhookResult post_webhook(const WebhookRequest& request, const WebhookLimits& limits) {
  WebhookResult out;
  std::string why;
  auto url = core::parse_http_url(request.url, &why);
  if (!url) {
    out.permanent = true;
    out.error = "unusable webhook URL: it " + why;
    return out;
  }
  bool finished = false;
  std::optional<ssl::context> tls;
  if (url->tls) {
    tls.emplace(ssl::context::tls_client);
    boost::system::error_code ec;
    tls->set_default_verify_paths(ec);
    tls->set_verify_mode(ssl::verify_peer);
    tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3);
  }
  {
    // Declared after everything the coroutine refers to: destroying it (with the
    // coroutine unfinished at the deadline) happens first.
    asio::io_context ioc;
    asio::co_spawn(ioc, deliver(Exchange{*url, request, limits, tls ? &*tls : nullptr, out, finished}), asio::detached);
    ioc.run_for(limits.total_timeout);
  }
  if (!finished && !out.delivered) {
    out.error = "no answer from " + url->redacted + " within " + std::to_string(limits.total_timeout.count()) + " ms";
  }
  return out;
}

}  // namespace agentry::notify
