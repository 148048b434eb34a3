#pragma once
// Drives one api::EventStream for the embedded client: a thread that polls the source
// when the in-process event bus wakes it, and also every `interval`, because another
// process writing the same database (a daemon, another CLI) cannot wake this one.
// Events are handed to the subscriber shaped exactly as the daemon's JSON-RPC
// notifications, so followers cannot tell the transports apart.

#include "api/event_stream.hpp"
#include "cli/client.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace agentry::cli {

class StreamPump {
 public:
  /// Starts the source and the polling thread.
  StreamPump(std::shared_ptr<api::EventStream> source, std::string subscription_id, std::string run_id,
             StreamHandlers handlers, std::chrono::milliseconds interval);
  /// Stops polling and joins the thread; no handler runs after it returns. Never call
  /// it from inside a handler.
  ~StreamPump();
  StreamPump(const StreamPump&) = delete;
  StreamPump& operator=(const StreamPump&) = delete;

 private:
  struct State;
  void loop();

  std::shared_ptr<api::EventStream> source_;
  std::string subscription_id_;
  std::string run_id_;
  StreamHandlers handlers_;
  std::chrono::milliseconds interval_;
  std::shared_ptr<State> state_;
  std::thread thread_;
};

/// The JSON-RPC notification (method and params) for one stream event, as the daemon
/// sends it: run.timeline / run.audit carry {subscriptionId, runId, cursor, event};
/// run.summary / run.detail carry subscriptionId plus the event object's members.
StreamEvent to_notification(const events::Frame& frame, const char* channel, const std::string& subscription_id,
                            const std::string& run_id);

}  // namespace agentry::cli
