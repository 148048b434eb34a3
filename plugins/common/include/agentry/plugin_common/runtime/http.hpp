// An HTTP/1.1 client on an executor (Beast, OpenSSL): one POST per connection over
// http:// or https://, with a whole-call deadline and a cancel, so a call never outlives
// an interrupt of its attempt or the destruction of its instance. The answer is read
// whole (bounded), not streamed; redirects are not followed; no proxy.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/async_result.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/post.hpp>

namespace agentry::plugin_common::runtime {

struct HttpRequest {
  std::string url;  // http:// or https://, checked with parse_net_url
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string content_type = "application/json";
  std::string user_agent = "agentry";
  std::chrono::milliseconds timeout{120000};  // the whole call: resolve, connect, send, answer
  std::size_t max_response_bytes = 16u << 20;
};

struct HttpResponse {
  int status = 0;      // 0: no HTTP answer; `error` says why
  std::string body;
  std::string error;   // a transport failure, the deadline or the cancel
  bool timed_out = false;
  bool cancelled = false;
};

class HttpCall {
 public:
  virtual ~HttpCall() = default;
  // [executor] Drops the connection; the call completes with `cancelled`. Idempotent, and
  // harmless after the completion.
  virtual void cancel() noexcept = 0;
};

// [executor] Starts the POST. `done` runs once, on the executor and never inside
// this call or inside cancel(). https:// checks the server's certificate against the
// system's CA store (or SSL_CERT_FILE) and its name or address, and sends SNI for names.
std::shared_ptr<HttpCall> http_post(const boost::asio::any_io_executor& io, HttpRequest request,
                                    std::function<void(HttpResponse)> done);

// The same for a completion token (a coroutine's `use_awaitable`); `call` is set before
// the operation waits, so its owner can cancel it.
template <class Token>
auto async_http_post(const boost::asio::any_io_executor& io, HttpRequest request, std::shared_ptr<HttpCall>& call,
                     Token&& token) {
  return boost::asio::async_initiate<Token, void(HttpResponse)>(
      [&io, &call](auto handler, HttpRequest r) {
        // std::function copies; a coroutine's handler only moves. It resumes through its own
        // executor, never inside the client's completion.
        auto shared = std::make_shared<decltype(handler)>(std::move(handler));
        call = http_post(io, std::move(r), [shared](HttpResponse response) {
          boost::asio::post(boost::asio::get_associated_executor(*shared),
                            [shared, response = std::move(response)]() mutable { std::move(*shared)(std::move(response)); });
        });
      },
      token, std::move(request));
}

}  // namespace agentry::plugin_common::runtime
