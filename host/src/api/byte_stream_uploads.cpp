// Byte streams a client sends (byte_streams.hpp): attachments.upload.open starts one,
// stream.data chunks are written to a spool file on the workers (each written chunk is
// granted back as credit), and attachments.upload.finish waits for the last write and
// stores the file as an attachment of the run.

#include "api/byte_streams.hpp"

#include "api/byte_stream_state.hpp"
#include "api/json_body.hpp"
#include "api/operations.hpp"
#include "api/worker_dispatch.hpp"
#include "core/attachment.hpp"
#include "core/base64.hpp"
#include "core/log.hpp"
#include "events/projections.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdint>
#include <iterator>
#include <vector>

namespace agentry::api {
namespace net = boost::asio;
namespace json = boost::json;

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

namespace {

struct Opened {
  core::Result<std::unique_ptr<workspace::BlobWriter>> writer = core::fail(core::ErrorCode::internal, "unset");
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
  if (auto refused = stream_limit_refusal()) co_return answer_error(id, std::move(*refused), method);
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

}  // namespace agentry::api
