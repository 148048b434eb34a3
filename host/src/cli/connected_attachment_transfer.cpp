// Attachment transfers over a daemon connection (ConnectedClient): uploads and
// downloads are byte streams on the WebSocket (api/byte_streams.hpp), paced by credit
// both ways. Only the stream notifications come from the connection; no Beast here.

#include "cli/connected_client.hpp"

#include "cli/rpc_protocol.hpp"
#include "core/base64.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>
#include <system_error>

namespace agentry::cli {
namespace json = boost::json;
using core::ErrorCode;

namespace {

std::string stream_message(const RpcNotification& n) {
  auto* m = n.params.if_contains("message");
  return m && m->is_string() ? std::string(m->as_string()) : std::string("the daemon failed the stream");
}

}  // namespace

core::Result<json::value> ConnectedClient::upload_attachment(const std::string& run_id, const std::filesystem::path& file,
                                                             const std::string& name, const TransferProgress& progress) {
  auto size = attachment_file_size(file);
  if (!size) return size.failure();
  std::ifstream in(file, std::ios::binary);
  if (!in) return core::fail(ErrorCode::invalid_request, "cannot open '" + file.string() + "'");
  auto opened = call("attachments.upload.open", json::object{{"runId", run_id}, {"name", name}, {"size", *size}});
  if (!opened) return opened.failure();
  const std::string sid(opened->at("streamId").as_string());
  std::uint64_t credit = opened->at("window").to_number<std::uint64_t>();
  auto cancel = [&](core::Error error) -> core::Result<json::value> {
    send_stream_notification("stream.cancel", {{"streamId", sid}});
    forget_stream(sid);
    return core::fail(std::move(error));
  };
  std::string buffer(65536, '\0');
  std::uint64_t done = 0;
  std::int64_t seq = 0;
  while (done < *size) {
    // Sends only as far as the daemon's credit; its stream.window grants more.
    while (credit == 0) {
      auto n = next_stream_message(sid);
      if (!n) return cancel(n.error());
      if (n->method == "stream.error") {
        forget_stream(sid);
        return core::fail(ErrorCode::internal, "the daemon failed the upload: " + stream_message(*n));
      }
      if (n->method == "stream.window") credit += n->params.at("bytes").to_number<std::uint64_t>();
    }
    const auto want = static_cast<std::streamsize>(std::min<std::uint64_t>({buffer.size(), credit, *size - done}));
    in.read(buffer.data(), want);
    if (in.gcount() != want)
      return cancel(core::make_error(ErrorCode::invalid_request, "'" + file.string() + "' changed while being read"));
    send_stream_notification("stream.data", {{"streamId", sid}, {"seq", seq++},
                                             {"data", core::base64_encode(std::string_view(buffer.data(), want))}});
    done += static_cast<std::uint64_t>(want);
    credit -= static_cast<std::uint64_t>(want);
    if (progress) progress(done, *size);
  }
  send_stream_notification("stream.end", {{"streamId", sid}, {"seq", seq}});
  auto finished = call("attachments.upload.finish", json::object{{"streamId", sid}});
  if (!finished) {
    // A stream the daemon failed while we were sending: its stream.error says why.
    if (auto failed = take_stream_error(sid))
      return core::fail(ErrorCode::internal, "the daemon failed the upload: " + stream_message(*failed));
  }
  forget_stream(sid);
  return finished;
}

core::Result<json::value> ConnectedClient::download_attachment(const std::string& run_id,
                                                               const std::string& attachment_id,
                                                               const std::filesystem::path& destination,
                                                               const TransferProgress& progress) {
  const auto partial = partial_path_for(destination);
  std::ofstream out(partial, std::ios::binary | std::ios::trunc);
  if (!out) return core::fail(ErrorCode::invalid_request, "cannot write '" + partial.string() + "'");
  auto started = call("attachments.download", json::object{{"runId", run_id}, {"attachmentId", attachment_id}});
  auto give_up = [&](core::Error error, const std::string& sid) -> core::Result<json::value> {
    if (!sid.empty()) {
      send_stream_notification("stream.cancel", {{"streamId", sid}});
      forget_stream(sid);
    }
    out.close();
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    return core::fail(std::move(error));
  };
  if (!started) return give_up(started.error(), "");
  const std::string sid(started->at("streamId").as_string());
  const std::uint64_t total = started->at("attachment").at("size").to_number<std::uint64_t>();
  std::uint64_t done = 0;
  std::int64_t seq = 0;
  for (;;) {
    auto n = next_stream_message(sid);
    if (!n) return give_up(n.error(), sid);
    if (n->method == "stream.error")
      return give_up(core::make_error(ErrorCode::internal, "the daemon failed the download: " + stream_message(*n)), "");
    if (n->method == "stream.end") break;
    if (n->method != "stream.data") continue;
    auto* data = n->params.if_contains("data");
    auto bytes = data && data->is_string() ? core::base64_decode(std::string_view(data->as_string())) : std::nullopt;
    auto* got_seq = n->params.if_contains("seq");
    if (!bytes || !got_seq || !got_seq->is_int64() || got_seq->as_int64() != seq)
      return give_up(core::make_error(ErrorCode::internal, "the daemon sent a malformed stream.data"), sid);
    ++seq;
    out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    if (!out) return give_up(core::make_error(ErrorCode::invalid_request, "writing '" + partial.string() + "' failed"), sid);
    done += bytes->size();
    // Credit back what was consumed: the daemon never runs more than its window ahead.
    send_stream_notification("stream.window", {{"streamId", sid}, {"bytes", bytes->size()}});
    if (progress) progress(done, total);
  }
  forget_stream(sid);
  out.close();
  if (!out || done != total)
    return give_up(core::make_error(ErrorCode::internal, "the download ended after " + std::to_string(done) + " of " +
                                                             std::to_string(total) + " bytes"),
                   "");
  std::error_code ec;
  std::filesystem::rename(partial, destination, ec);
  if (ec) return give_up(core::make_error(ErrorCode::invalid_request, "cannot write '" + destination.string() + "': " + ec.message()), "");
  return json::value(json::object{{"attachment", started->at("attachment")}});
}

}  // namespace agentry::cli
