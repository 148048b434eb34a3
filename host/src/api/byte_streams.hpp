#pragma once
// Byte streams on one WebSocket connection (the reference's stream.* notifications):
//   stream.data   {streamId, seq, data}  base64 bytes, seq counts from 0
//   stream.end    {streamId, seq}        EOF; seq is the next expected one
//   stream.error  {streamId, message}    the stream failed (not the connection)
//   stream.cancel {streamId}             either side gives up; everything is cleaned up
//   stream.window {streamId, bytes}      the receiver grants more credit as it consumes
// Attachment uploads (attachments.upload.open / .finish) are streams the client sends;
// downloads (attachments.download) are streams the daemon sends. Every disk access (the
// spool file's writes, the stored file's reads) and every database call runs on the
// worker pool; the connection's strand only moves chunks and counts credit.
// Internal to the server TUs: it includes Asio.

#include "engine/engine.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace agentry::api {

struct ByteStreamLimits {
  std::size_t max_chunk_bytes = 65536;
  std::size_t max_streams = 8;
  std::uint64_t initial_credit = 512 * 1024;
  std::uint64_t max_buffered_per_stream = 1024 * 1024;
  std::uint64_t max_buffered_per_connection = 4 * 1024 * 1024;
  std::chrono::milliseconds idle_timeout = std::chrono::seconds(30);
  /// How long a download's data waits after its answer. agent-runner's client opens the
  /// stream only once the answer's promise has settled, which happens between two socket
  /// reads, not between two messages of one read: data that arrives with the answer is
  /// refused as an unknown stream. Zero for ours, which accepts either order.
  std::chrono::milliseconds first_data_delay{0};
};

class ByteStreams : public std::enable_shared_from_this<ByteStreams> {
 public:
  struct Stream;
  /// `send` queues one JSON text on the connection; `outbox_bytes` says how much is queued
  /// (a download waits while the outbox is full). Both are called on the strand only.
  ByteStreams(boost::asio::any_io_executor strand, boost::asio::thread_pool& workers, engine::Engine& engine,
              engine::Actor actor, std::string scope_run_id, std::function<void(std::string)> send,
              std::function<std::size_t()> outbox_bytes, ByteStreamLimits limits = {});
  ~ByteStreams();

  static bool is_stream_method(std::string_view method) { return method.rfind("stream.", 0) == 0; }
  static bool is_stream_request(std::string_view method) {
    return method == "attachments.upload.open" || method == "attachments.upload.finish" ||
           method == "attachments.download";
  }

  /// [strand] A stream.* notification from the client.
  void on_notification(const std::string& method, const boost::json::object& params);
  /// [strand] One of the methods is_stream_request() names; the JSON-RPC answer's text.
  boost::asio::awaitable<std::string> call(boost::json::value id, std::string method, boost::json::object params);
  /// [strand] The outbox has room again: paused downloads go on.
  void on_room();
  /// [strand] The connection is gone: every stream is dropped (spool files removed).
  void close();

 private:
  void fail(const std::shared_ptr<Stream>& s, const std::string& message, bool tell = true);
  void drop(const std::shared_ptr<Stream>& s);
  void send_error(const std::string& stream_id, const std::string& message);
  void on_data(const std::shared_ptr<Stream>& s, const boost::json::object& params);
  void on_end(const std::shared_ptr<Stream>& s, const boost::json::object& params);
  void pump_writes(const std::shared_ptr<Stream>& s);
  void pump_reads(const std::shared_ptr<Stream>& s);
  void start_idle_timer();
  /// CONFLICT once this connection has max_streams open (or opening); nullopt otherwise.
  std::optional<core::Error> stream_limit_refusal() const;
  boost::asio::awaitable<std::string> upload_open(boost::json::value id, boost::json::object params);
  boost::asio::awaitable<std::string> upload_finish(boost::json::value id, boost::json::object params);
  boost::asio::awaitable<std::string> download(boost::json::value id, boost::json::object params);

  boost::asio::any_io_executor strand_;
  boost::asio::thread_pool& workers_;
  engine::Engine& engine_;
  engine::Actor actor_;
  std::string scope_run_id_;
  std::function<void(std::string)> send_;
  std::function<std::size_t()> outbox_bytes_;
  ByteStreamLimits limits_;
  std::map<std::string, std::shared_ptr<Stream>> streams_;
  std::uint64_t buffered_ = 0;  // received, not yet written, over every upload
  std::uint64_t next_id_ = 1;
  std::size_t opening_ = 0;  // opens between their check and their registration
  boost::asio::steady_timer idle_timer_;
  bool idle_timer_running_ = false;
  bool closed_ = false;
};

}  // namespace agentry::api
