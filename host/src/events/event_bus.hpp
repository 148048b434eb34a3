#pragma once
// Tells live subscribers that something committed. Summaries, details and audit
// events are not carried here: a notified subscriber reads what is new from the store
// (after its cursor, for audit), which gives replay-then-live with no gap and no
// duplicate by construction, and a slow subscriber costs no memory. Timelines, where
// the volume is, go through the bus's TimelineFeeds (events/timeline_feed.hpp), which
// hold the newest events serialized once for every subscriber.
//
// Listeners run synchronously on the notifying thread and must not block.

#include "events/browser_frames.hpp"
#include "events/timeline_feed.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace agentry::events {

/// browser: a run's live view changed (BrowserFrames holds the latest frame).
enum class Channel { summary, detail, audit, browser };

struct Notification {
  Channel channel = Channel::summary;
  std::string run_id;
};

class EventBus {
 public:
  using Listener = std::function<void(const Notification&)>;

  EventBus() = default;
  /// The live timeline windows take from the daemon's stream memory (TimelineFeeds).
  explicit EventBus(std::shared_ptr<core::ByteBudget> stream_memory) : timeline_({}, std::move(stream_memory)) {}

  /// Unsubscribes on destruction.
  class Subscription {
   public:
    Subscription() = default;
    Subscription(EventBus* bus, std::uint64_t id) : bus_(bus), id_(id) {}
    Subscription(Subscription&& other) noexcept : bus_(other.bus_), id_(other.id_) { other.bus_ = nullptr; }
    Subscription& operator=(Subscription&& other) noexcept;
    Subscription(const Subscription&) = delete;
    Subscription& operator=(const Subscription&) = delete;
    ~Subscription();

   private:
    EventBus* bus_ = nullptr;
    std::uint64_t id_ = 0;
  };

  /// `run_id` empty: every run.
  Subscription subscribe(Channel channel, std::string run_id, Listener listener);

  void notify(Channel channel, const std::string& run_id);
  /// The run's summary, detail and audit changed (any committed mutation).
  void run_changed(const std::string& run_id);
  /// Every run's live timeline.
  TimelineFeeds& timeline() { return timeline_; }
  /// Every run's browser live view; notify(Channel::browser) after a change.
  BrowserFrames& browser() { return browser_; }

  std::size_t subscriber_count() const;

 private:
  struct Entry {
    std::uint64_t id;
    Channel channel;
    std::string run_id;
    std::shared_ptr<Listener> listener;
  };
  void unsubscribe(std::uint64_t id);
  void deliver(const Notification& n);

  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  TimelineFeeds timeline_;
  BrowserFrames browser_;
  std::uint64_t next_id_ = 1;
};

}  // namespace agentry::events
