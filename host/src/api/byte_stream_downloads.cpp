// Byte streams the daemon sends (byte_streams.hpp): attachments.download opens the
// stored file, and its content goes out as stream.data only as far as the client's
// credit (stream.window) and the connection's outbox allow, read on the workers.

#include "api/byte_streams.hpp"

#include "api/byte_stream_state.hpp"
#include "api/json_body.hpp"
#include "api/operations.hpp"
#include "api/run_scope.hpp"
#include "api/worker_dispatch.hpp"
#include "core/base64.hpp"
#include "core/log.hpp"
#include "events/frame.hpp"
#include "events/projections.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
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

}  // namespace

/// [strand] Reads the next piece of a download on the workers, as far as credit allows,
/// and sends it; stream.end once the whole file went out.
void ByteStreams::pump_reads(const std::shared_ptr<Stream>& s) {
  if (s->reading || s->closed || s->held || closed_) return;
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

namespace {

struct OpenedFile {
  core::Result<core::Attachment> attachment = core::fail(core::ErrorCode::internal, "unset");
  int fd = -1;
};

// GCC 12 destroys lambda temporaries created inside a co_await expression twice, so the
// callable handed to on_workers() is built in this plain function.

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
  if (auto refused = stream_limit_refusal()) co_return answer_error(id, std::move(*refused), method);
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
  if (limits_.first_data_delay.count() > 0) {
    s->held = true;
    auto timer = std::make_shared<net::steady_timer>(strand_, limits_.first_data_delay);
    timer->async_wait([self, s, timer](const boost::system::error_code& ec) {
      s->held = false;
      if (!ec) self->pump_reads(s);
    });
  } else {
    net::post(strand_, [self, s] { self->pump_reads(s); });
  }
  co_return jsonrpc_result(id, json::object{{"streamId", s->id},
                                            {"attachment", events::attachment_json(*opened.attachment)},
                                            {"window", limits_.initial_credit}});
}

}  // namespace agentry::api
