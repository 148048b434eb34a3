#pragma once
// The client of a running daemon: WebSocket JSON-RPC on the daemon's port. Calls are
// synchronous for the caller; one I/O thread reads answers (matched by id) and
// notifications (dispatched to subscribers). Every wait is bounded. Beast and Asio
// stay inside connected_client.cpp.

#include "cli/client.hpp"
#include "cli/rpc_protocol.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace agentry::cli {

struct ConnectOptions {
  std::string url;    // ws://host:port/
  std::string token;  // AGENTRY_DAEMON_TOKEN; sent as a bearer token when not empty, never printed
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds call_timeout{60000};
};

class ConnectedClient final : public Client {
 public:
  /// Connects and completes the WebSocket handshake. Errors say what to do:
  /// "cannot connect to ws://...: Connection refused; is `agentry serve` running?",
  /// and an UNAUTHENTICATED error when the daemon wants a (different) token.
  static core::Result<std::unique_ptr<ConnectedClient>> connect(const ConnectOptions& options);
  ~ConnectedClient() override;

  core::Result<boost::json::value> call(const std::string& method, boost::json::object params) override;
  core::Result<std::string> subscribe(const SubscribeRequest& request, StreamHandlers handlers) override;
  void unsubscribe(const std::string& subscription_id) override;
  core::Result<boost::json::value> upload_attachment(const std::string& run_id, const std::filesystem::path& file,
                                                     const std::string& name,
                                                     const TransferProgress& progress) override;
  core::Result<boost::json::value> download_attachment(const std::string& run_id, const std::string& attachment_id,
                                                       const std::filesystem::path& destination,
                                                       const TransferProgress& progress) override;
  bool drives_runs() const override { return false; }
  std::string describe() const override;

  struct Impl;

 private:
  explicit ConnectedClient(std::unique_ptr<Impl> impl);

  // The byte streams of attachment transfers (connected_attachment_transfer.cpp), which
  // reach the connection only through these.
  /// Sends a stream.* notification; any thread.
  void send_stream_notification(const std::string& method, boost::json::object params);
  /// The next stream.* notification for `stream_id`; an error when the connection is lost
  /// or nothing comes within the call timeout.
  core::Result<RpcNotification> next_stream_message(const std::string& stream_id);
  /// Drops what arrived for `stream_id` and was not read.
  void forget_stream(const std::string& stream_id);
  /// A stream.error that arrived for `stream_id` and was not read; when there is one,
  /// everything else that arrived for the stream is dropped with it.
  std::optional<RpcNotification> take_stream_error(const std::string& stream_id);

  std::unique_ptr<Impl> impl_;
};

}  // namespace agentry::cli
