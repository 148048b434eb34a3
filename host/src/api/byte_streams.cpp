#include "api/byte_streams.hpp"

#include "api/json_body.hpp"
#include "api/jsonrpc.hpp"
#include "api/operations.hpp"
#include "api/run_scope.hpp"
#include "api/server_errors.hpp"
#include "api/worker_dispatch.hpp"
#include "core/attachment.hpp"
#include "core/base64.hpp"
#include "core/log.hpp"
#include "events/frame.hpp"
#include "events/projections.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <vector>

namespace agentry::api {
namespace net = boost::asio;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

/// A download reads at most this much per trip to the workers.
constexpr std::uint64_t read_batch_bytes = 256 * 1024;
/// A download sends only while the connection's outbox holds less than this.
constexpr std::size_t download_outbox_bytes = 1024 * 1024;
/// Credit a client may hold unspent on one download (a guard against overflow only).
constexpr std::uint64_t max_download_credit = 64ull * 1024 * 1024;

core::Error stream_error(core::ErrorCode code, std::string message, json::object details = {}) {
  return core::make_error(code, std::move(message), std::move(details));
}

std::string notification(std::string_view method, json::object params) {
  return json::serialize(json::object{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

}  // namespace

struct ByteStreams::Stream {
  Stream(net::any_io_executor ex) : signal(std::move(ex)) {}
  std::string id;
  bool upload = true;
  bool closed = false;  // failed, cancelled, finished: no longer in the map
  std::string error;    // why it failed
  Clock::time_point last_activity = Clock::now();
  net::steady_timer signal;  // wakes a waiting attachments.upload.finish

  // Upload: chunks received and not yet written, written by one worker job at a time.
  std::string run_id;
  engine::NewAttachment what;
  std::optional<std::uint64_t> declared_size;
  std::unique_ptr<workspace::BlobWriter> writer;
  std::deque<std::string> queue;
  std::uint64_t buffered = 0;  // queued + being written
  std::uint64_t received = 0;
  std::uint64_t granted = 0;  // credit given to the client so far, initial included
  std::int64_t next_seq = 0;
  bool writing = false;
  bool ended = false;
  bool finishing = false;

  // Download: the stored file, read ahead only as far as the client's credit.
  int fd = -1;
  std::uint64_t size = 0;
  std::uint64_t offset = 0;
  std::uint64_t credit = 0;
  bool reading = false;

  ~Stream() {
    if (fd >= 0) ::close(fd);
  }
};

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

void ByteStreams::on_data(const std::shared_ptr<Stream>& s, const json::object& params) {
  if (s->ended) return fail(s, "stream.data after stream.end");
  const json::value* seq = params.if_contains("seq");
  if (!seq || !seq->is_int64() || seq->as_int64() != s->next_seq)
    return fail(s, "stream.data out of order: expected seq " + std::to_string(s->next_seq));
  const json::value* data = params.if_contains("data");
  if (!data || !data->is_string()) return fail(s, "stream.data needs base64 'data'");
  const auto& text = data->as_string();
  if (core::base64_decoded_size(text.size()) > limits_.max_chunk_bytes + 2)
    return fail(s, "a chunk may hold at most " + std::to_string(limits_.max_chunk_bytes) + " bytes");
  auto bytes = core::base64_decode(std::string_view(text.data(), text.size()));
  if (!bytes) return fail(s, "stream.data 'data' is not valid base64");
  const std::uint64_t n = bytes->size();
  if (n > limits_.max_chunk_bytes)
    return fail(s, "a chunk may hold at most " + std::to_string(limits_.max_chunk_bytes) + " bytes");
  if (s->received + n > s->granted)
    return fail(s, "the sender went past its credit: " + std::to_string(s->granted - s->received) +
                       " bytes were granted; wait for stream.window");
  if (s->received + n > core::max_attachment_bytes || (s->declared_size && s->received + n > *s->declared_size))
    return fail(s, s->declared_size && s->received + n > *s->declared_size
                       ? "more bytes than the declared size " + std::to_string(*s->declared_size)
                       : "an attachment may hold at most " + std::to_string(core::max_attachment_bytes) + " bytes");
  if (s->buffered + n > limits_.max_buffered_per_stream)
    return fail(s, "more than " + std::to_string(limits_.max_buffered_per_stream) + " unread bytes on the stream");
  if (buffered_ + n > limits_.max_buffered_per_connection)
    return fail(s, "more than " + std::to_string(limits_.max_buffered_per_connection) +
                       " unread bytes on this connection");
  ++s->next_seq;
  s->received += n;
  s->buffered += n;
  buffered_ += n;
  if (n > 0) s->queue.push_back(std::move(*bytes));
  pump_writes(s);
}

void ByteStreams::on_end(const std::shared_ptr<Stream>& s, const json::object& params) {
  if (s->ended) return fail(s, "stream.end twice");
  const json::value* seq = params.if_contains("seq");
  if (!seq || !seq->is_int64() || seq->as_int64() != s->next_seq)
    return fail(s, "stream.end has the wrong seq: expected " + std::to_string(s->next_seq));
  if (s->declared_size && s->received != *s->declared_size)
    return fail(s, "the stream ended after " + std::to_string(s->received) + " bytes; " +
                       std::to_string(*s->declared_size) + " were declared");
  s->ended = true;
  s->signal.cancel();
}

/// [strand] Hands the queued chunks to one worker job; when it is done the client gets
/// their bytes back as credit.
void ByteStreams::pump_writes(const std::shared_ptr<Stream>& s) {
  if (s->writing || s->queue.empty() || s->closed) return;
  s->writing = true;
  std::vector<std::string> chunks(std::make_move_iterator(s->queue.begin()), std::make_move_iterator(s->queue.end()));
  s->queue.clear();
  net::post(workers_, [self = shared_from_this(), s, chunks = std::move(chunks)]() mutable {
    std::uint64_t bytes = 0;
    std::string error;
    for (const auto& chunk : chunks) {
      auto written = s->writer->write(chunk);
      if (!written) {
        error = written.error().message;
        break;
      }
      bytes += chunk.size();
    }
    std::uint64_t total = 0;
    for (const auto& chunk : chunks) total += chunk.size();
    net::dispatch(self->strand_, [self, s, bytes, total, error = std::move(error)]() mutable {
      s->writing = false;
      if (s->closed) {  // dropped meanwhile: let go of the spool file here, on the workers
        net::post(self->workers_, [writer = std::move(s->writer)]() mutable { writer.reset(); });
        return;
      }
      s->buffered -= total;
      self->buffered_ -= total;
      if (!error.empty()) {
        core::log_warn("attachment upload write failed", {{"stream", s->id}, {"error", error}});
        return self->fail(s, "the daemon could not store the upload");
      }
      s->granted += bytes;
      if (!s->ended)
        self->send_(notification("stream.window", {{"streamId", s->id}, {"bytes", bytes}}));
      if (!s->queue.empty()) self->pump_writes(s);
      else if (s->ended) s->signal.cancel();
    });
  });
}

/// [strand] Reads the next piece of a download on the workers, as far as credit allows,
/// and sends it; stream.end once the whole file went out.
void ByteStreams::pump_reads(const std::shared_ptr<Stream>& s) {
  if (s->reading || s->closed || closed_) return;
  if (s->offset >= s->size) {
    send_(notification("stream.end", {{"streamId", s->id}, {"seq", s->next_seq}}));
    drop(s);
    return;
  }
  if (s->credit == 0) return;  // stream.window resumes it
  if (outbox_bytes_() > download_outbox_bytes) return;  // on_room() resumes it
  const std::uint64_t n = std::min({s->credit, read_batch_bytes, s->size - s->offset});
  s->reading = true;
  net::post(workers_, [self = shared_from_this(), s, n, offset = s->offset, seq = s->next_seq,
                       chunk = limits_.max_chunk_bytes]() mutable {
    std::vector<std::string> messages;
    std::string error;
    std::string buffer;
    std::int64_t next = seq;
    for (std::uint64_t done = 0; done < n;) {
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, n - done));
      buffer.resize(want);
      const ssize_t got = ::pread(s->fd, buffer.data(), want, static_cast<off_t>(offset + done));
      if (got != static_cast<ssize_t>(want)) {
        error = got < 0 ? std::string(std::strerror(errno)) : "the stored file is shorter than its size";
        break;
      }
      std::string text = R"({"jsonrpc":"2.0","method":"stream.data","params":{"streamId":)";
      events::append_json_string(text, s->id);
      text += R"(,"seq":)" + std::to_string(next++) + R"(,"data":")";
      text += core::base64_encode(buffer);
      text += "\"}}";
      messages.push_back(std::move(text));
      done += want;
    }
    net::dispatch(self->strand_, [self, s, n, messages = std::move(messages), error = std::move(error)]() mutable {
      s->reading = false;
      if (s->closed) {
        net::post(self->workers_, [fd = std::exchange(s->fd, -1)] {
          if (fd >= 0) ::close(fd);
        });
        return;
      }
      if (!error.empty()) {
        core::log_warn("attachment download read failed", {{"stream", s->id}, {"error", error}});
        return self->fail(s, "the daemon could not read the attachment");
      }
      for (auto& m : messages) self->send_(std::move(m));
      s->next_seq += static_cast<std::int64_t>(messages.size());
      s->offset += n;
      s->credit -= n;
      s->last_activity = Clock::now();
      self->pump_reads(s);
    });
  });
}

void ByteStreams::on_room() {
  if (closed_) return;
  std::vector<std::shared_ptr<Stream>> ready;
  for (auto& [id, s] : streams_)
    if (!s->upload && !s->reading && s->credit > 0) ready.push_back(s);
  for (auto& s : ready) pump_reads(s);
}

// ---------------------------------------------------------------------------------------
// Methods

net::awaitable<std::string> ByteStreams::call(json::value id, std::string method, json::object params) {
  if (method == "attachments.upload.open") co_return co_await upload_open(std::move(id), std::move(params));
  if (method == "attachments.upload.finish") co_return co_await upload_finish(std::move(id), std::move(params));
  co_return co_await download(std::move(id), std::move(params));
}

namespace {

std::string answer_error(const json::value& id, core::Error error, std::string_view method) {
  return jsonrpc_error(id, client_error(std::move(error), new_request_id(), method));
}

struct Opened {
  core::Result<std::unique_ptr<workspace::BlobWriter>> writer = core::fail(core::ErrorCode::internal, "unset");
};

struct OpenedFile {
  core::Result<core::Attachment> attachment = core::fail(core::ErrorCode::internal, "unset");
  int fd = -1;
};

// GCC 12 destroys lambda temporaries created inside a co_await expression twice, so the
// callables handed to on_workers() are built in these plain functions.

net::awaitable<Opened> begin_upload(net::thread_pool& pool, engine::Attachments& attachments, std::string run_id) {
  return on_workers<Opened>(pool, [&attachments, run_id = std::move(run_id)]() {
    Opened out;
    auto listed = attachments.list(run_id, false);  // NOT_FOUND for an unknown run
    if (!listed) {
      out.writer = listed.failure();
      return out;
    }
    if (!attachments.blobs()) {
      out.writer = core::fail(core::ErrorCode::internal, "attachments are unavailable on this daemon");
      return out;
    }
    out.writer = attachments.blobs()->begin_write();
    return out;
  });
}

net::awaitable<core::Result<core::Attachment>> store_upload(net::thread_pool& pool, engine::Attachments& attachments,
                                                            std::string run_id, engine::NewAttachment what,
                                                            std::unique_ptr<workspace::BlobWriter> writer,
                                                            engine::Actor actor) {
  return on_workers<core::Result<core::Attachment>>(
      pool, [&attachments, run_id = std::move(run_id), what = std::move(what), writer = std::move(writer),
             actor = std::move(actor)]() mutable {
        return attachments.add_written(run_id, what, std::move(writer), actor);
      });
}

net::awaitable<OpenedFile> open_download(net::thread_pool& pool, engine::Attachments& attachments,
                                         std::string run_id, std::string attachment_id) {
  return on_workers<OpenedFile>(pool, [&attachments, run_id = std::move(run_id),
                                       attachment_id = std::move(attachment_id)]() {
    OpenedFile out;
    auto found = attachments.content(run_id, attachment_id);
    if (!found) {
      out.attachment = found.failure();
      return out;
    }
    out.fd = ::open(found->second.c_str(), O_RDONLY | O_CLOEXEC);
    if (out.fd < 0) {
      core::log_warn("attachment content unreadable", {{"path", found->second.string()}, {"error", std::strerror(errno)}});
      out.attachment = core::fail(core::ErrorCode::internal, "the attachment's content could not be opened");
      return out;
    }
    out.attachment = std::move(found->first);
    return out;
  });
}

}  // namespace

net::awaitable<std::string> ByteStreams::upload_open(json::value id, json::object params) {
  auto self = shared_from_this();
  const char* method = "attachments.upload.open";
  JsonBody body(std::move(params));
  if (auto ok = body.allow_only({"runId", "name", "contentType", "size"}); !ok)
    co_return answer_error(id, ok.error(), method);
  auto run_id = run_id_of(body);
  if (!run_id) co_return answer_error(id, run_id.error(), method);
  if (!scope_run_id_.empty())
    co_return answer_error(id, stream_error(core::ErrorCode::forbidden, "uploading an attachment needs the daemon's token",
                                            {{"scopeRunId", scope_run_id_}}),
                           method);
  auto raw_name = body.required_string("name");
  if (!raw_name) co_return answer_error(id, raw_name.error(), method);
  auto name = engine_.attachments().check_name(*raw_name);
  if (!name) co_return answer_error(id, name.error(), method);
  auto type = body.optional_string("contentType");
  if (!type) co_return answer_error(id, type.error(), method);
  auto size = body.optional_int("size", 0, INT64_MAX);
  if (!size) co_return answer_error(id, size.error(), method);
  if (*size && static_cast<std::uint64_t>(**size) > core::max_attachment_bytes)
    co_return answer_error(id,
                           stream_error(core::ErrorCode::payload_too_large,
                                        "an attachment may hold at most " + std::to_string(core::max_attachment_bytes) +
                                            " bytes (25 MiB)",
                                        {{"limit", core::max_attachment_bytes}, {"size", **size}}),
                           method);
  if (streams_.size() + opening_ >= limits_.max_streams)
    co_return answer_error(id, stream_error(core::ErrorCode::conflict,
                                            "at most " + std::to_string(limits_.max_streams) +
                                                " active streams per connection; finish or cancel one first",
                                            {{"limit", limits_.max_streams}}),
                           method);
  ++opening_;
  Opened opened = co_await begin_upload(workers_, engine_.attachments(), *run_id);
  --opening_;
  if (!opened.writer) co_return answer_error(id, opened.writer.error(), method);
  if (closed_) co_return std::string();
  auto s = std::make_shared<Stream>(strand_);
  s->id = "st_" + std::to_string(next_id_++);
  s->run_id = *run_id;
  s->what = {*raw_name, type->value_or("")};
  if (*size) s->declared_size = static_cast<std::uint64_t>(**size);
  s->writer = std::move(*opened.writer);
  s->granted = limits_.initial_credit;
  streams_[s->id] = s;
  start_idle_timer();
  co_return jsonrpc_result(id, json::object{{"streamId", s->id}, {"window", limits_.initial_credit}});
}

net::awaitable<std::string> ByteStreams::upload_finish(json::value id, json::object params) {
  auto self = shared_from_this();
  const char* method = "attachments.upload.finish";
  JsonBody body(std::move(params));
  if (auto ok = body.allow_only({"streamId"}); !ok) co_return answer_error(id, ok.error(), method);
  auto stream_id = body.required_string("streamId");
  if (!stream_id) co_return answer_error(id, stream_id.error(), method);
  auto it = streams_.find(*stream_id);
  if (it == streams_.end() || !it->second->upload || it->second->finishing)
    co_return answer_error(id,
                           stream_error(core::ErrorCode::not_found,
                                        "no open upload stream '" + *stream_id + "' on this connection",
                                        {{"streamId", *stream_id}}),
                           method);
  auto s = it->second;
  s->finishing = true;
  while (!s->closed && !(s->ended && !s->writing && s->queue.empty())) {
    s->signal.expires_at(net::steady_timer::time_point::max());
    co_await s->signal.async_wait(net::as_tuple(net::use_awaitable));
  }
  if (s->closed)
    co_return answer_error(id, stream_error(core::ErrorCode::conflict, "the upload failed: " + s->error,
                                            {{"streamId", s->id}}),
                           method);
  auto writer = std::move(s->writer);
  drop(s);
  auto added = co_await store_upload(workers_, engine_.attachments(), s->run_id, s->what, std::move(writer), actor_);
  if (!added) co_return answer_error(id, added.error(), method);
  co_return jsonrpc_result(id, json::object{{"attachment", events::attachment_json(*added)}});
}

net::awaitable<std::string> ByteStreams::download(json::value id, json::object params) {
  auto self = shared_from_this();
  const char* method = "attachments.download";
  JsonBody body(std::move(params));
  if (auto ok = body.allow_only({"runId", "attachmentId"}); !ok) co_return answer_error(id, ok.error(), method);
  auto run_id = run_id_of(body);
  if (!run_id) co_return answer_error(id, run_id.error(), method);
  if (auto ok = check_stream_scope(*run_id, scope_run_id_); !ok) co_return answer_error(id, ok.error(), method);
  auto attachment_id = body.required_string("attachmentId");
  if (!attachment_id) co_return answer_error(id, attachment_id.error(), method);
  if (streams_.size() + opening_ >= limits_.max_streams)
    co_return answer_error(id, stream_error(core::ErrorCode::conflict,
                                            "at most " + std::to_string(limits_.max_streams) +
                                                " active streams per connection; finish or cancel one first",
                                            {{"limit", limits_.max_streams}}),
                           method);
  ++opening_;
  OpenedFile opened = co_await open_download(workers_, engine_.attachments(), *run_id, *attachment_id);
  --opening_;
  if (!opened.attachment) {
    if (opened.fd >= 0) ::close(opened.fd);
    co_return answer_error(id, opened.attachment.error(), method);
  }
  auto s = std::make_shared<Stream>(strand_);
  s->fd = opened.fd;  // closed with the stream
  if (closed_) co_return std::string();
  s->upload = false;
  s->id = "st_" + std::to_string(next_id_++);
  s->size = opened.attachment->size;
  s->credit = limits_.initial_credit;
  streams_[s->id] = s;
  start_idle_timer();
  // The answer is queued when this coroutine returns, before the posted first read's data.
  net::post(strand_, [self, s] { self->pump_reads(s); });
  co_return jsonrpc_result(id, json::object{{"streamId", s->id},
                                            {"attachment", events::attachment_json(*opened.attachment)},
                                            {"window", limits_.initial_credit}});
}

}  // namespace agentry::api
