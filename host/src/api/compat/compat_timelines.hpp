#pragma once
// The timeline agent-runner's clients follow, one per run a compat client touches.
// Their cursors are a per-run counter kept by the daemon in memory, every event
// numbered, deltas included, and their clients reload the history when one is skipped;
// so each run gets one translator (timeline_translation.hpp) that numbers its events as
// it makes them, keeps the current session's in a window for late subscribers (a client
// that subscribes after a quick run ended still gets run_finished), and builds the
// history its attempts show. A translator follows our own timeline stream of the run;
// it is pumped by whoever reads it (a subscriber's poll, a history request), on their
// worker, so it has no thread of its own.

#include "api/event_stream.hpp"
#include "core/result.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace agentry::engine {
class Engine;
}

namespace agentry::api::compat {

class RunTranslator;

class CompatTimelines {
 public:
  explicit CompatTimelines(engine::Engine& engine) : engine_(engine) {}
  ~CompatTimelines();
  CompatTimelines(const CompatTimelines&) = delete;
  CompatTimelines& operator=(const CompatTimelines&) = delete;

  /// RunTimelineHistory {runId, attempts, lastCursor}. Reads the store: call on a worker.
  core::Result<boost::json::object> history(const std::string& run_id);
  /// Their timeline stream of the run: the current session's events so far, then live.
  /// `websocket`: frames carry the bare event (a notification's `event`) instead of the
  /// SSE envelope {runId, cursor, event}. Reads the store: call on a worker.
  core::Result<std::shared_ptr<EventStream>> subscribe(const std::string& run_id, bool websocket);

  /// Events a translator keeps for late subscribers (agent-runner keeps as many).
  static constexpr std::size_t window_events = 1000;
  /// A translator nobody reads is dropped after this long (its counter is remembered).
  static constexpr std::chrono::minutes idle_lifetime{5};

 private:
  core::Result<std::shared_ptr<RunTranslator>> translator(const std::string& run_id);

  engine::Engine& engine_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<RunTranslator>> translators_;
  /// The last cursor of each run whose translator was dropped: a new one starts past it.
  std::map<std::string, std::int64_t> counters_;
};

}  // namespace agentry::api::compat
