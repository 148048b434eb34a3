// Byte streams (byte_streams.hpp): what every stream on a connection needs, whichever
// way it goes. The map of open streams, the stream.* notifications a client sends,
// failing and dropping a stream, and cancelling idle ones. Uploads are in
// byte_stream_uploads.cpp, downloads in byte_stream_downloads.cpp.

#include "api/byte_streams.hpp"

#include "api/byte_stream_state.hpp"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <utility>
#include <vector>

namespace agentry::api {
namespace net = boost::asio;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

/// Credit a client may hold unspent on one download (a guard against overflow only).
constexpr std::uint64_t max_download_credit = 64ull * 1024 * 1024;

}  // namespace

ByteStreams::ByteStreams(net::any_io_executor strand, net::thread_pool& workers, engine::Engine& engine,
                         engine::Actor actor, std::string scope_run_id, std::function<void(std::string)> send,
                         std::function<std::size_t()> outbox_bytes, ByteStreamLimits limits)
    : strand_(strand),
      workers_(workers),
      engine_(engine),
      actor_(std::move(actor)),
      scope_run_id_(std::move(scope_run_id)),
      send_(std::move(send)),
      outbox_bytes_(std::move(outbox_bytes)),
      limits_(limits),
      idle_timer_(strand) {}

ByteStreams::~ByteStreams() = default;

void ByteStreams::close() {
  closed_ = true;
  idle_timer_.cancel();
  auto streams = std::move(streams_);
  streams_.clear();
  for (auto& [id, s] : streams) fail(s, "the connection closed", false);
}

/// [strand] Out of the map for good; its writer (spool file) or file descriptor is let
/// go on the workers, unless a worker job still holds it (that job's answer does it).
void ByteStreams::drop(const std::shared_ptr<Stream>& s) {
  if (s->upload) buffered_ -= s->buffered;
  s->buffered = 0;
  s->queue.clear();
  s->closed = true;
  s->signal.cancel();
  streams_.erase(s->id);
  if (!s->writing && !s->reading) {
    net::post(workers_, [writer = std::move(s->writer), fd = std::exchange(s->fd, -1)]() mutable {
      writer.reset();  // removes the spool file
      if (fd >= 0) ::close(fd);
    });
  }
}

void ByteStreams::fail(const std::shared_ptr<Stream>& s, const std::string& message, bool tell) {
  if (s->closed) return;
  s->error = message;
  if (tell && !closed_) send_error(s->id, message);
  drop(s);
}

void ByteStreams::send_error(const std::string& stream_id, const std::string& message) {
  send_(notification("stream.error", {{"streamId", stream_id}, {"message", message}}));
}

void ByteStreams::start_idle_timer() {
  if (idle_timer_running_ || closed_) return;
  idle_timer_running_ = true;
  idle_timer_.expires_after(std::max(limits_.idle_timeout / 4, std::chrono::milliseconds(10)));
  idle_timer_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    auto self = weak.lock();
    if (!self) return;
    self->idle_timer_running_ = false;
    if (ec || self->closed_) return;
    const auto now = Clock::now();
    std::vector<std::shared_ptr<Stream>> idle;
    for (auto& [id, s] : self->streams_) {
      // Waiting on the client: an upload's next frame, a download's next stream.window.
      const bool waiting = s->upload ? !s->writing : !s->reading && s->credit == 0;
      if (waiting && now - s->last_activity > self->limits_.idle_timeout) idle.push_back(s);
    }
    for (auto& s : idle)
      self->fail(s, "the stream was idle for " + std::to_string(self->limits_.idle_timeout.count() / 1000) +
                        " s; it is cancelled");
    if (!self->streams_.empty()) self->start_idle_timer();
  });
}

// ---------------------------------------------------------------------------------------
// Notifications from the client

void ByteStreams::on_notification(const std::string& method, const json::object& params) {
  if (closed_) return;
  const json::value* sid = params.if_contains("streamId");
  if (!sid || !sid->is_string()) return;  // nothing to answer: a notification names no request
  const std::string stream_id(sid->as_string());
  auto it = streams_.find(stream_id);
  if (it == streams_.end()) {
    // Credit and cancels for a stream that just ended or failed are normal (they cross
    // the daemon's stream.end or stream.error) and dropped quietly; data for it is not.
    if (method == "stream.data" || method == "stream.end") {
      send_error(stream_id, "no active stream '" + stream_id + "' on this connection");
    }
    return;
  }
  auto s = it->second;
  s->last_activity = Clock::now();
  if (method == "stream.cancel" || method == "stream.error") {
    fail(s, "cancelled by the client", false);
  } else if (method == "stream.data") {
    if (!s->upload) return fail(s, "stream.data on a stream the daemon sends");
    on_data(s, params);
  } else if (method == "stream.end") {
    if (!s->upload) return fail(s, "stream.end on a stream the daemon sends");
    on_end(s, params);
  } else if (method == "stream.window") {
    const json::value* bytes = params.if_contains("bytes");
    if (!bytes || !bytes->is_int64() || bytes->as_int64() <= 0)
      return fail(s, "stream.window needs a positive integer 'bytes'");
    if (s->upload) return;  // the daemon's own grants are what count for uploads
    s->credit = std::min<std::uint64_t>(s->credit + static_cast<std::uint64_t>(bytes->as_int64()), max_download_credit);
    pump_reads(s);
  } else {
    fail(s, "unknown stream notification '" + method + "'");
  }
}

// ---------------------------------------------------------------------------------------
// Methods

net::awaitable<std::string> ByteStreams::call(json::value id, std::string method, json::object params) {
  if (method == "attachments.upload.open") co_return co_await upload_open(std::move(id), std::move(params));
  if (method == "attachments.upload.finish") co_return co_await upload_finish(std::move(id), std::move(params));
  co_return co_await download(std::move(id), std::move(params));
}

std::optional<core::Error> ByteStreams::stream_limit_refusal() const {
  if (streams_.size() + opening_ < limits_.max_streams) return std::nullopt;
  return stream_error(core::ErrorCode::conflict,
                      "at most " + std::to_string(limits_.max_streams) +
                          " active streams per connection; finish or cancel one first",
                      {{"limit", limits_.max_streams}});
}

}  // namespace agentry::api
