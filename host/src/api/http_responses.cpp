// Writing answers on an HTTP connection (http_server_impl.hpp): a whole body, a file
// read from disk as it is sent, or a Server-Sent Events stream that lasts as long as the
// client stays. Every write has a timeout, so a client that stops reading is dropped.

#include "api/http_server_impl.hpp"

#include "api/event_stream.hpp"
#include "api/run_streams.hpp"
#include "api/worker_dispatch.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>

#include <array>
#include <atomic>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::api {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

http::response<http::string_body> to_beast(const HttpResponse& response, unsigned version, bool keep_alive) {
  http::response<http::string_body> res{static_cast<http::status>(response.status), version};
  res.set(http::field::server, "agentry");
  // An answer without a body (202, 204) may name no type.
  if (!response.content_type.empty()) res.set(http::field::content_type, response.content_type);
  res.set("X-Content-Type-Options", "nosniff");
  for (const auto& [name, value] : response.headers) res.set(name, value);
  res.keep_alive(keep_alive);
  res.body() = response.body;
  res.prepare_payload();
  return res;
}

// GCC 12 destroys lambda temporaries created inside a co_await expression twice, so
// the callable handed to on_workers() is built in this plain function instead.

/// poll() may read the store, so it runs on the worker pool like request handlers.
net::awaitable<StreamBatch> poll_on_workers(HttpServer::Impl& impl, std::shared_ptr<EventStream> source) {
  return on_workers<StreamBatch>(impl.workers, [source = std::move(source)]() {
    return poll_stream(*source, stream_batch_frames, false);
  });
}

/// Wakes a stream's writer: set by the source's waker, checked before sleeping.
struct StreamWake {
  explicit StreamWake(const net::any_io_executor& executor) : timer(executor) {}
  std::atomic<bool> pending{false};
  bool hung_up = false;  // [strand] the client closed its side
  net::steady_timer timer;
};

/// A stream's client sends nothing after its request, so its side of the connection
/// ending (EOF, a reset) means it left: the writer is woken to give up its connection
/// slot now, not at its next write, which may be a heartbeat many seconds away.
/// Reads the socket beneath the stream, whose timer belongs to the writes.
net::awaitable<void> watch_for_hangup(ServedSocket& socket, std::shared_ptr<StreamWake> wake) {
  std::array<char, 512> ignored;
  for (;;) {
    auto [ec, n] = co_await socket.async_read_some(net::buffer(ignored), net::as_tuple(net::use_awaitable));
    if (ec) break;  // bytes after the request are not ours to read; only the end matters
  }
  // `socket` may be gone by now (the stream ended first): only `wake` is touched.
  wake->hung_up = true;
  wake->timer.cancel();
}

/// Writes `buffers` in one go; a client that takes longer than the write timeout to
/// accept them has stalled and is dropped (it resumes by cursor).
template <class Buffers>
net::awaitable<bool> write_all(ServedStream& stream, const Buffers& buffers, const ServerLimits& limits) {
  stream.expires_after(limits.write_timeout);
  auto [ec, n] = co_await net::async_write(stream, buffers, net::as_tuple(net::use_awaitable));
  co_return !ec;
}

/// A download: the file's content as the body, read from disk as it is sent.
net::awaitable<void> write_file_response(ServedStream& stream, const HttpResponse& response, unsigned version,
                                         bool keep_alive, const ServerLimits& limits, bool& ok) {
  http::response<http::file_body> res{static_cast<http::status>(response.status), version};
  beast::error_code open_ec;
  res.body().open(response.file.c_str(), beast::file_mode::scan, open_ec);
  if (open_ec) {
    auto failed = error_response(core::ErrorCode::internal, "cannot read the file to send: " + open_ec.message());
    auto err = to_beast(failed, version, keep_alive);
    stream.expires_after(limits.write_timeout);
    auto [ec, n] = co_await http::async_write(stream, err, net::as_tuple(net::use_awaitable));
    ok = !ec;
    co_return;
  }
  res.set(http::field::server, "agentry");
  res.set(http::field::content_type, response.content_type);
  res.set("X-Content-Type-Options", "nosniff");
  for (const auto& [name, value] : response.headers) res.set(name, value);
  res.keep_alive(keep_alive);
  res.prepare_payload();
  http::response_serializer<http::file_body> serializer{res};
  // The write timeout is per piece, so a large file on a slow link is not cut off
  // while it moves; a stalled reader still is.
  ok = true;
  while (!serializer.is_done()) {
    stream.expires_after(limits.write_timeout);
    auto [ec, n] = co_await http::async_write_some(stream, serializer, net::as_tuple(net::use_awaitable));
    if (ec) {
      ok = false;
      co_return;
    }
  }
}

}  // namespace

/// Serves a Server-Sent Events response until the client goes away, the source
/// closes, or the daemon stops. The connection is not reused afterwards. Frames are
/// shared with every other subscriber: they are written as they are, gathered.
net::awaitable<void> serve_stream(HttpServer::Impl& impl, ServedStream& stream, const HttpResponse& response,
                                  unsigned version) {
  http::response<http::empty_body> head{http::status::ok, version};
  head.set(http::field::server, "agentry");
  head.set(http::field::content_type, response.content_type);
  for (const auto& [name, value] : response.headers) head.set(name, value);
  head.keep_alive(false);  // the body ends when the connection closes
  http::response_serializer<http::empty_body> serializer{head};
  stream.expires_after(impl.limits.write_timeout);
  auto [head_ec, head_n] = co_await http::async_write_header(stream, serializer, net::as_tuple(net::use_awaitable));
  if (head_ec) co_return;

  auto wake = std::make_shared<StreamWake>(stream.get_executor());
  net::co_spawn(stream.get_executor(), watch_for_hangup(stream.socket(), wake), net::detached);
  response.stream->start([weak = std::weak_ptr<StreamWake>(wake)] {
    auto w = weak.lock();
    if (!w) return;
    w->pending = true;
    net::post(w->timer.get_executor(), [w] { w->timer.cancel(); });
  });
  std::vector<net::const_buffer> buffers;
  constexpr std::size_t join_below = 4096;
  for (;;) {
    wake->pending = false;
    // From memory on this strand when the stream can; from the workers when it must read the store.
    StreamBatch batch;
    if (auto ready = response.stream->poll_ready(stream_batch_frames)) batch = std::move(*ready);
    else batch = co_await poll_on_workers(impl, response.stream);
    if (!batch.frames.empty()) {
      // Small frames are copied into one buffer: a write of many small pieces costs a
      // system call per 64 of them, and a copy of a few hundred bytes costs less than that.
      // Sized first, so it is allocated once and never moves while `buffers` points into it.
      std::size_t small_bytes = 0;
      for (const auto& frame : batch.frames)
        if (frame->text.size() <= join_below) small_bytes += frame->text.size();
      std::string joined;
      joined.reserve(small_bytes);
      buffers.clear();
      std::size_t run_begin = 0;
      auto end_run = [&] {
        if (joined.size() > run_begin) buffers.emplace_back(joined.data() + run_begin, joined.size() - run_begin);
        run_begin = joined.size();
      };
      for (const auto& frame : batch.frames) {
        if (frame->text.size() <= join_below) {
          joined += frame->text;
          continue;
        }
        end_run();
        buffers.emplace_back(net::buffer(frame->text));
      }
      end_run();
      if (!co_await write_all(stream, buffers, impl.limits)) break;
    }
    if (batch.closed || impl.stopping || wake->hung_up) break;
    if (wake->pending || batch.more) continue;
    wake->timer.expires_after(impl.limits.sse_heartbeat);
    auto [timer_ec] = co_await wake->timer.async_wait(net::as_tuple(net::use_awaitable));
    if (impl.stopping || wake->hung_up) break;
    if (!timer_ec && !wake->pending) {
      static constexpr std::string_view heartbeat = ": heartbeat\n\n";
      if (!co_await write_all(stream, net::buffer(heartbeat.data(), heartbeat.size()), impl.limits)) break;
    }
  }
}

HttpResponse body_too_large(std::uint64_t limit) {
  return error_response(core::ErrorCode::payload_too_large,
                        "request body is larger than " + std::to_string(limit) + " bytes", {{"limit", limit}});
}

/// The response to a request that could not be read, or nothing when the peer is gone.
std::optional<HttpResponse> read_failure_response(const boost::system::error_code& ec, const ServerLimits& limits,
                                                  std::uint64_t body_limit) {
  if (ec == http::error::body_limit) return body_too_large(body_limit);
  if (ec == http::error::header_limit) {
    auto r = error_response(core::ErrorCode::invalid_request,
                            "request headers are larger than " + std::to_string(limits.max_header_bytes) + " bytes",
                            {{"limit", limits.max_header_bytes}});
    r.status = 431;
    return r;
  }
  if (ec.category() == http::make_error_code(http::error::bad_target).category())
    return error_response(core::ErrorCode::invalid_request, "malformed HTTP request: " + ec.message());
  return std::nullopt;  // timeout, reset, EOF: nobody to answer
}

net::awaitable<void> write_response(ServedStream& stream, const HttpResponse& response, unsigned version,
                                    bool keep_alive, const ServerLimits& limits, bool& ok) {
  if (!response.file.empty()) {
    co_await write_file_response(stream, response, version, keep_alive, limits, ok);
    co_return;
  }
  auto res = to_beast(response, version, keep_alive);
  stream.expires_after(limits.write_timeout);
  auto [ec, n] = co_await http::async_write(stream, res, net::as_tuple(net::use_awaitable));
  ok = !ec;
}

}  // namespace agentry::api
