#include "events/stream_metrics.hpp"

namespace agentry::events {

core::metrics::Gauge& stream_subscribers(const char* channel) {
  return core::metrics::registry().gauge("agentry_stream_subscribers",
                                         "Live subscribers of the event streams (SSE, WebSocket, CLI follow), by channel.",
                                         {{"channel", channel}});
}

core::metrics::Counter& conflated_deltas() {
  static auto& merged = core::metrics::registry().counter(
      "agentry_stream_conflated_deltas_total",
      "Live deltas merged into the one before them for a subscriber that fell behind.");
  return merged;
}

core::metrics::Gauge& timeline_feeds() {
  static auto& feeds = core::metrics::registry().gauge(
      "agentry_stream_timeline_feeds",
      "Runs whose live timeline is held in memory: watched, or streaming unwatched, or recently watched.");
  return feeds;
}

}  // namespace agentry::events
