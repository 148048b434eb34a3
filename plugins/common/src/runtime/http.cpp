#include "agentry/plugin_common/runtime/http.hpp"

#include <optional>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <openssl/ssl.h>

#include "agentry/plugin_common/runtime/url.hpp"

namespace agentry::plugin_common::runtime {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

namespace {

constexpr auto kAwait = asio::as_tuple(asio::use_awaitable);

class Exchange final : public HttpCall, public std::enable_shared_from_this<Exchange> {
 public:
  Exchange(const asio::any_io_executor& io, HttpRequest request, std::function<void(HttpResponse)> done)
      : io_(io), request_(std::move(request)), done_(std::move(done)), resolver_(io), deadline_(io) {}

  void start() {
    std::string why;
    auto url = parse_net_url(request_.url, {"http", "https"}, why);
    if (!url) {
      HttpResponse r;
      r.error = "the URL " + request_.url + " " + why;
      return complete(std::move(r));
    }
    url_ = std::move(*url);
    deadline_.expires_after(request_.timeout);
    deadline_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec || self->reported_) return;
      self->drop();
      HttpResponse r;
      r.timed_out = true;
      r.error = "no answer within " + std::to_string(self->request_.timeout.count()) + " ms";
      self->complete(std::move(r));
    });
    asio::co_spawn(io_, run(), [self = shared_from_this()](std::exception_ptr e) {
      if (e) {
        HttpResponse r;
        r.error = "internal error in the HTTP client";
        self->complete(std::move(r));
      }
    });
  }

  void cancel() noexcept override {
    if (reported_) return;
    drop();
    HttpResponse r;
    r.cancelled = true;
    r.error = "cancelled";
    try {
      complete(std::move(r));
    } catch (...) {  // out of memory for the post: nothing better to do
    }
  }

 private:
  // The connection goes at once; whichever coroutine step was waiting ends with an error
  // that complete() no longer reports.
  void drop() noexcept {
    boost::system::error_code ignored;
    resolver_.cancel();
    if (plain_) plain_->socket().close(ignored);
    if (tls_) beast::get_lowest_layer(*tls_).socket().close(ignored);
  }

  void complete(HttpResponse response) {
    if (reported_) return;
    reported_ = true;
    deadline_.cancel();
    asio::post(io_, [done = std::move(done_), response = std::move(response)]() mutable {
      if (done) done(std::move(response));
    });
  }

  http::request<http::string_body> build() const {
    http::request<http::string_body> req{http::verb::post, url_.target, 11};
    req.set(http::field::host, url_.host_header());
    req.set(http::field::content_type, request_.content_type);
    req.set(http::field::accept, "application/json");
    req.set(http::field::user_agent, request_.user_agent);
    req.set(http::field::connection, "close");
    for (const auto& [name, value] : request_.headers) req.set(name, value);
    req.body() = request_.body;
    req.prepare_payload();
    return req;
  }

  template <class Stream>
  asio::awaitable<HttpResponse> send_and_read(Stream& stream) {
    HttpResponse out;
    auto req = build();
    if (auto [ec, n] = co_await http::async_write(stream, req, kAwait); ec) {
      out.error = "sending the request failed: " + ec.message();
      co_return out;
    }
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.header_limit(64 * 1024);
    parser.body_limit(request_.max_response_bytes);
    auto [ec, n] = co_await http::async_read(stream, buffer, parser, kAwait);
    if (ec && !parser.is_header_done()) {
      out.error = "no HTTP answer: " + ec.message();
      co_return out;
    }
    out.status = static_cast<int>(parser.get().result_int());
    out.body = std::move(parser.get().body());
    if (ec) out.error = "the answer was cut short: " + ec.message();
    co_return out;
  }

  asio::awaitable<void> run() {
    auto self = shared_from_this();  // the streams live as long as the coroutine
    HttpResponse out;
    auto [rec, endpoints] = co_await resolver_.async_resolve(url_.host, url_.port, kAwait);
    if (rec) {
      out.error = "cannot resolve " + url_.host + ": " + rec.message();
    } else if (reported_) {
      co_return;
    } else if (!url_.tls()) {
      plain_.emplace(io_);
      if (auto [cec, ep] = co_await plain_->async_connect(endpoints, kAwait); cec)
        out.error = "cannot connect to " + url_.host + ":" + url_.port + ": " + cec.message();
      else
        out = co_await send_and_read(*plain_);
    } else {
      context_.emplace(ssl::context::tls_client);
      boost::system::error_code ignored;
      context_->set_default_verify_paths(ignored);
      context_->set_verify_mode(ssl::verify_peer);
      tls_.emplace(io_, *context_);
      // SNI for names only (RFC 6066 has no room for address literals); SSL_set_tlsext_host_name
      // is a macro with an old-style cast, hence SSL_ctrl.
      boost::system::error_code not_an_address;
      asio::ip::make_address(url_.host, not_an_address);
      if (not_an_address)
        SSL_ctrl(tls_->native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, url_.host.data());
      tls_->set_verify_callback(ssl::host_name_verification(url_.host));
      if (auto [cec, ep] = co_await beast::get_lowest_layer(*tls_).async_connect(endpoints, kAwait); cec)
        out.error = "cannot connect to " + url_.host + ":" + url_.port + ": " + cec.message();
      else if (auto [hec] = co_await tls_->async_handshake(ssl::stream_base::client, kAwait); hec)
        out.error = "TLS handshake with " + url_.host + " failed: " + hec.message();
      else
        out = co_await send_and_read(*tls_);
    }
    drop();
    complete(std::move(out));
  }

  asio::any_io_executor io_;
  const HttpRequest request_;
  std::function<void(HttpResponse)> done_;
  NetUrl url_;
  tcp::resolver resolver_;
  asio::steady_timer deadline_;
  std::optional<beast::tcp_stream> plain_;
  std::optional<ssl::context> context_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls_;
  bool reported_ = false;
};

}  // namespace

std::shared_ptr<HttpCall> http_post(const asio::any_io_executor& io, HttpRequest request, std::function<void(HttpResponse)> done) {
  auto call = std::make_shared<Exchange>(io, std::move(request), std::move(done));
  call->start();
  return call;
}

}  // namespace agentry::plugin_common::runtime
