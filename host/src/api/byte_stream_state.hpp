#pragma once
// The inside of byte_streams.hpp: one stream's state, and the few helpers its three
// files share. byte_streams.cpp holds the bookkeeping every stream needs (the map,
// stream.* notifications, failure, idle streams); byte_stream_uploads.cpp the streams a
// client sends; byte_stream_downloads.cpp the ones the daemon sends. Internal to those
// files: it includes Asio.

#include "api/byte_streams.hpp"
#include "api/jsonrpc.hpp"
#include "api/server_errors.hpp"
#include "core/error.hpp"
#include "workspace/blob_store.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/json/serialize.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::api {

struct ByteStreams::Stream {
  explicit Stream(boost::asio::any_io_executor ex) : signal(std::move(ex)) {}
  std::string id;
  bool upload = true;
  bool closed = false;  // failed, cancelled, finished: no longer in the map
  std::string error;    // why it failed
  std::chrono::steady_clock::time_point last_activity = std::chrono::steady_clock::now();
  boost::asio::steady_timer signal;  // wakes a waiting attachments.upload.finish

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
  bool held = false;  // waiting out ByteStreamLimits::first_data_delay: nothing is sent yet

  ~Stream() {
    if (fd >= 0) ::close(fd);
  }
};

inline core::Error stream_error(core::ErrorCode code, std::string message, boost::json::object details = {}) {
  return core::make_error(code, std::move(message), std::move(details));
}

/// A JSON-RPC notification's text: stream.window, stream.end, stream.error.
inline std::string notification(std::string_view method, boost::json::object params) {
  return boost::json::serialize(
      boost::json::object{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

/// The JSON-RPC answer to a failed attachments.* call, as a client may see it (server_errors.hpp).
inline std::string answer_error(const boost::json::value& id, core::Error error, std::string_view method) {
  return jsonrpc_error(id, client_error(std::move(error), new_request_id(), method));
}

}  // namespace agentry::api
