#pragma once
// The four live projections as EventStream sources, and the one place a subscription
// is opened from (SSE routes, WebSocket events.subscribe and the embedded CLI alike):
//   summary   every run's RunSummary as it changes (summary_upsert / summary_removed)
//   detail    one run's RunDetail snapshot, first at connect, then on every change
//   timeline  one run's timeline envelopes from a cursor on (id: <cursor>), ephemeral
//             deltas (no id) in their place among them (events/timeline_feed.hpp)
//   audit     one run's audit envelopes from a cursor on (id: <cursor>)
//   browser   one run's browser live view: the newest frame at each change, or why none

#include "api/event_stream.hpp"
#include "core/result.hpp"
#include "engine/engine.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace agentry::api {

/// Summaries changed and not yet sent that one subscriber may hold before it is told to
/// start over (a summary stream then closes; the client reconnects and lists).
inline constexpr std::size_t max_pending_summaries = 10000;
/// Frames one poll returns at most.
inline constexpr std::size_t stream_batch_frames = 1024;

struct StreamRequest {
  std::string channel;  // run_summary, run_detail, run_timeline, run_audit, run_browser
  std::string run_id;   // empty for run_summary
  std::int64_t after = 0;
  /// For a WebSocket subscription: sources whose frames differ by transport (api/compat/)
  /// make theirs; ours are the same for both.
  bool websocket = false;
};

/// `source->poll()`, with a failure logged and reported as the end of the stream.
StreamBatch poll_stream(EventStream& source, std::size_t max_frames, bool look_in_store);

/// Checks the request (the channel, a run id only where it belongs, the run exists)
/// and makes its source. Reads the store: call it on a worker.
core::Result<std::shared_ptr<EventStream>> open_stream(engine::Engine& engine, const StreamRequest& request);

}  // namespace agentry::api
