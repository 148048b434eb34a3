#pragma once
// What the live streams count for GET /metrics: subscribers by channel, the deltas a
// subscriber that fell behind got merged instead of one by one, and the feeds held.

#include "core/metrics.hpp"

namespace agentry::events {

/// Live subscribers of one channel ("timeline", "summary", "detail", "audit", "browser").
core::metrics::Gauge& stream_subscribers(const char* channel);
core::metrics::Counter& conflated_deltas();
/// Runs whose live timeline (window, merged deltas, shared pages) is held in memory.
core::metrics::Gauge& timeline_feeds();

/// Counts a subscriber while it lives.
class CountedSubscriber {
 public:
  explicit CountedSubscriber(core::metrics::Gauge& gauge) : gauge_(&gauge) { gauge_->add(1); }
  CountedSubscriber(CountedSubscriber&& other) noexcept : gauge_(other.gauge_) { other.gauge_ = nullptr; }
  CountedSubscriber& operator=(CountedSubscriber&&) = delete;
  CountedSubscriber(const CountedSubscriber&) = delete;
  CountedSubscriber& operator=(const CountedSubscriber&) = delete;
  ~CountedSubscriber() {
    if (gauge_) gauge_->add(-1);
  }

 private:
  core::metrics::Gauge* gauge_;
};

}  // namespace agentry::events
