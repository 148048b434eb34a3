#pragma once
// The host's one C++ view of a live backend instance. Today it wraps an in-process
// plugin instance (plugin_backend_instance.cpp); a later out-of-process transport (a
// keeper process that loads the same .so) is another implementation of this interface.
//
// Every member is called on the run's serialized control context (its strand). Events
// arrive on any thread through the BackendEventSink, already validated and copied.

#include "core/result.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentry::plugin_host {

/// A plugin's event in the host's own terms, translated once at the ABI boundary
/// (plugin_backend_instance.cpp): nothing above host/src/plugin_host sees an ABI number.
struct BackendEvent {
  /// The timeline kind: "message.delta", "tool.started", "session.checkpoint",
  /// "attempt.finished", ... ("event.<n>" for a type from a newer ABI minor).
  std::string kind;
  bool ephemeral = false;  // streamed, never stored
  bool terminal = false;   // ends the attempt (kind "attempt.finished")
  std::uint64_t seq = 0;
  std::int64_t time_ns = 0;
  /// The payload as the plugin wrote it (re-serialized only if it spans lines), checked
  /// to be a JSON object at the ABI boundary: stored and streamed as it is, so nobody
  /// serializes it again.
  std::string payload_json;
  /// The payload as an object when the boundary already built it (the events whose
  /// payload is always read: deltas, the terminal event); otherwise empty until
  /// payload() parses it. Most events are only stored and streamed, never read.
  mutable std::optional<boost::json::object> parsed;

  const boost::json::object& payload() const;
  /// The object, moved out.
  boost::json::object take_payload();
};

/// Receives an instance's output. Implemented by the engine's live run.
class BackendEventSink {
 public:
  virtual ~BackendEventSink() = default;
  /// [any thread] Takes the event, or returns false when the bounded queue is full
  /// (the plugin sees AGENTRY_ERR_BUSY and retries).
  virtual bool offer(BackendEvent event) = 0;
  /// [any thread] A log line from the plugin, or the host's own note about a contract
  /// violation (`policy` > 0 names the obligation in plugin.h).
  virtual void on_log(int severity, std::string message, int policy) = 0;
  /// [any thread] The plugin asked for on_callback() on the control context.
  virtual void on_callback_requested() = 0;
  /// [any thread] The answer to a question put with BackendInstance::ask() (ext/ask.h):
  /// {"answer", "usage"?} or {"error"}. False when no such question waits for one.
  virtual bool on_answer(const std::string& ask_id, boost::json::object answer) {
    static_cast<void>(ask_id);
    static_cast<void>(answer);
    return false;
  }
};

struct StartRequest {
  std::string run_id;
  std::string session_id;
  std::uint32_t session_index = 0;
  std::uint32_t attempt_number = 1;
  std::string workspace_path;
  std::string input_json;
  std::string config_json;
  std::optional<std::string> resume_token;
  std::vector<std::string> env;  // "KEY=VALUE"
};

enum class InputKind { message = 1, approval = 2 };

class BackendInstance {
 public:
  /// Destroys the instance unless poisoned (then it is deliberately leaked, with the
  /// host table it calls: its threads may still be running, and find the table cut off
  /// from the sink instead of freed memory).
  virtual ~BackendInstance() = default;
  virtual core::Result<void> start(const StartRequest& request) = 0;
  virtual core::Result<void> send_input(InputKind kind, const std::string& input_id, const std::string& payload) = 0;
  virtual core::Result<void> interrupt(const std::string& reason) = 0;
  /// Lets go of the running attempt and leaves the agent working (ext/detach.h); the
  /// attempt then ends with FINISHED {"outcome":"detached"}. CONFLICT when the backend,
  /// or this attempt, cannot outlive the instance: interrupt it instead.
  virtual core::Result<void> detach(const std::string& reason) = 0;
  /// Begins an attempt that takes over the one a gone controller left running, from the
  /// request's resume token. CONFLICT when the backend cannot adopt it.
  virtual core::Result<void> adopt(const StartRequest& request) = 0;
  /// Puts a question about the run to an idle instance (ext/ask.h); the answer arrives
  /// through the sink's on_answer(). CONFLICT {"reason": "not_supported"} when the
  /// backend, or this configuration, cannot answer.
  virtual core::Result<void> ask(const std::string& ask_id, const std::string& request_json) = 0;
  virtual void on_callback() = 0;
  /// The instance broke its contract (no terminal event after interrupt): never destroy it.
  virtual void poison() = 0;
  virtual const std::string& backend_id() const = 0;
};

}  // namespace agentry::plugin_host
