#pragma once
// How a CLI command reaches the API: one interface, two transports.
//   EmbeddedClient   in-process: the same operations `agentry serve` runs, on the same
//                    SQLite store, with no daemon (the CLI process drives its runs).
//   ConnectedClient  WebSocket JSON-RPC to a running daemon (--connect / AGENTRY_CONNECT).
// Every call names an operation ("runs.list", "tasks.set", ...) and passes one JSON
// object of params; both transports answer with the operation's JSON result, or the
// same core::Error, so a command behaves identically in either mode.

#include "core/result.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace agentry::cli {

/// A live projection to follow, as `events.subscribe` takes it.
struct SubscribeRequest {
  std::string channel;                // "run_summary", "run_detail", "run_timeline", "run_audit"
  std::optional<std::string> run_id;  // required except for run_summary
  std::optional<std::int64_t> after;  // timeline/audit: start after this cursor (default 0)
};

/// One notification of a subscription, shaped as the JSON-RPC notification's params:
///   run.timeline / run.audit  {subscriptionId, runId, cursor (null: ephemeral), event}
///   run.detail                {subscriptionId, type: "run_detail", run} | {type: "run_removed", runId}
///   run.summary               {subscriptionId, type: "summary_upsert", summary} | {type: "summary_removed", runId}
struct StreamEvent {
  std::string method;  // "run.timeline", "run.audit", "run.detail", "run.summary"
  boost::json::object params;
};

/// How far a transfer got: bytes done of the total.
using TransferProgress = std::function<void(std::uint64_t done, std::uint64_t total)>;

/// Called on a transport thread; must not block.
struct StreamHandlers {
  std::function<void(const StreamEvent&)> on_event;
  /// The subscription ended without being unsubscribed: its run was deleted, the
  /// summary stream's subscriber fell 10,000 runs behind, or the connection was lost
  /// (`reason` says which).
  std::function<void(const std::string& reason)> on_closed;
};

/// The size of a file to upload: INVALID_REQUEST unless it is a readable regular file,
/// PAYLOAD_TOO_LARGE past an attachment's limit.
core::Result<std::uint64_t> attachment_file_size(const std::filesystem::path& file);
/// Where a download is written before it is renamed into place.
std::filesystem::path partial_path_for(const std::filesystem::path& destination);

class Client {
 public:
  virtual ~Client() = default;

  /// Runs the operation `method` with `params`; its JSON result, or the API's error.
  virtual core::Result<boost::json::value> call(const std::string& method, boost::json::object params) = 0;
  /// Starts a subscription; returns its id. Events for it arrive on `handlers`.
  virtual core::Result<std::string> subscribe(const SubscribeRequest& request, StreamHandlers handlers) = 0;
  /// Ends a subscription; no event arrives for it once this returns.
  virtual void unsubscribe(const std::string& subscription_id) = 0;

  /// Stores `file` as an attachment of the run under `name`; the answer of
  /// attachments.upload.finish ({attachment}). Connected: a WebSocket byte stream;
  /// embedded: written straight into the blob store.
  virtual core::Result<boost::json::value> upload_attachment(const std::string& run_id,
                                                             const std::filesystem::path& file,
                                                             const std::string& name,
                                                             const TransferProgress& progress);
  /// Writes the attachment's content to `destination` (replacing it once complete; a
  /// failed transfer leaves nothing behind); answers {attachment}.
  virtual core::Result<boost::json::value> download_attachment(const std::string& run_id,
                                                               const std::string& attachment_id,
                                                               const std::filesystem::path& destination,
                                                               const TransferProgress& progress);

  /// True when this process drives the runs it starts (embedded): they end with it.
  virtual bool drives_runs() const = 0;
  /// For messages: "ws://127.0.0.1:4773/" or "embedded (<database path>)".
  virtual std::string describe() const = 0;
};

}  // namespace agentry::cli
