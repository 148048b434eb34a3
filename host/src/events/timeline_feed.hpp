#pragma once
// The live timeline of each run, for its subscribers. Per run, a bounded window holds
// the newest events, durable and ephemeral, in the order they were written, each one
// serialized once and shared by every subscriber. A subscriber reads the window from
// its own position:
//   - one that falls behind gets the consecutive deltas of one item merged into one
//     (conflation) instead of a queue that grows;
//   - one the window has left behind catches up from the store (durable events, by
//     cursor) and from the feed's merged record of the deltas that left the window;
//   - nobody is dropped for being slow, and every subscriber ends with the whole text.
// Per run, order is emission order: a delta never arrives after a durable event that
// was written after it. Events reach the feed only after their commit (TimelineRepository's
// listener), so nothing a crash could take back is ever shown.

#include "core/byte_budget.hpp"
#include "core/run.hpp"
#include "events/frame.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace agentry::events {

struct FeedLimits {
  // The window while someone reads the feed: subscribers inside it share every frame.
  std::size_t window_entries = 32768;
  std::size_t window_bytes = std::size_t{8} << 20;   // frame text the window holds
  // ... and while nobody does (a run streaming unwatched; a late subscriber gets this).
  std::size_t idle_window_entries = 1024;
  std::size_t idle_window_bytes = std::size_t{256} << 10;
  std::size_t evicted_pieces = 4096;                 // merged deltas kept once out of the window
  std::size_t evicted_bytes = std::size_t{2} << 20;  // the text they cover
  std::size_t item_bytes = std::size_t{1} << 20;     // one item's text before its record starts over
  std::size_t behind = 64;      // a subscriber this many entries behind gets merged deltas
  std::size_t merge_bytes = std::size_t{32} << 10;  // text of one merged delta at most
  std::size_t poll_bytes = std::size_t{128} << 10;  // frames one poll hands out, about
  std::size_t idle_feeds = 32;  // feeds of streaming runs kept with nobody subscribed
  // Store pages (512 cursors each) shared by subscribers catching up: a feed keeps this
  // many while they fit in the stream memory (if any), and more while it is less than
  // half spent or every subscriber is behind the window (timeline_window.hpp).
  std::size_t history_pages = 8;
};

/// The run's durable timeline frames with cursors in (after, upto], at most `limit`,
/// in order; nullopt when the run is gone.
using HistoryReader =
    std::function<std::optional<std::vector<Frame>>(std::int64_t after, std::int64_t upto, std::size_t limit)>;
/// The run's last timeline cursor in the store; nullopt when the run is gone.
using LastCursorReader = std::function<std::optional<std::int64_t>()>;

class TimelineSubscriber;

class TimelineFeeds {
 public:
  struct Feed;  // timeline_window.hpp

  explicit TimelineFeeds(FeedLimits limits = {});
  /// With the daemon's stream memory: every feed's window, merged deltas and items take
  /// from it (at most three quarters of it together) and shrink when it is spent.
  TimelineFeeds(FeedLimits limits, std::shared_ptr<core::ByteBudget> memory);
  ~TimelineFeeds();
  TimelineFeeds(const TimelineFeeds&) = delete;
  TimelineFeeds& operator=(const TimelineFeeds&) = delete;

  /// [the store's writer, after commit] A run's events as written, in order; `base` is
  /// the run's last cursor before them.
  void publish(const std::string& run_id, std::int64_t base, std::vector<core::TimelineEvent>&& events);
  /// The run's timeline was deleted (reset, or the run itself): subscribers go back to
  /// the store, which says what is left.
  void reset(const std::string& run_id);
  /// A subscriber from cursor `after`. `wake` is called (from any thread, without locks
  /// held) when it has something to read; it must only schedule a poll.
  std::shared_ptr<TimelineSubscriber> subscribe(const std::string& run_id, std::int64_t after,
                                                std::function<void()> wake);

  /// The store may hold events of runs this process does not drive that their feeds
  /// were not told of: every watched feed that is not relayed and whose run `driven_here`
  /// does not claim has its subscribers look in the store once.
  void store_may_be_ahead(const std::function<bool(const std::string& run_id)>& driven_here);
  /// While `relayed`, the run's feed is fed by another member's stream (its durable
  /// events and deltas in order), and store_may_be_ahead() leaves it alone, lest a store
  /// look run ahead of the deltas.
  void set_relayed(const std::string& run_id, bool relayed);
  /// The newest durable cursor the run's feed knows; -1 when none (or no feed).
  std::int64_t last_cursor(const std::string& run_id);

  std::size_t feed_count() const;
  const FeedLimits& limits() const { return limits_; }

 private:
  friend class TimelineSubscriber;
  std::shared_ptr<Feed> feed_of(const std::string& run_id, bool create);
  void unsubscribe(TimelineSubscriber& subscriber);
  /// Drops feeds nobody reads whose session is over, and the oldest idle ones over the limit.
  void trim_idle_locked();
  /// Lets a feed go, and counts it out of agentry_stream_timeline_feeds.
  void erase_feed_locked(std::unordered_map<std::string, std::shared_ptr<Feed>>::iterator it);

  FeedLimits limits_;
  std::shared_ptr<core::ByteBudget> memory_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Feed>> feeds_;
  std::uint64_t tick_ = 0;
};

class TimelineSubscriber {
 public:
  struct Batch {
    std::vector<Frame> frames;
    bool closed = false;  // the run is gone
    bool more = false;    // more is ready: poll again without waiting for a wake
  };

  ~TimelineSubscriber();
  TimelineSubscriber(const TimelineSubscriber&) = delete;
  TimelineSubscriber& operator=(const TimelineSubscriber&) = delete;

  /// [one caller at a time; may read the store] Up to `max_frames` frames, in order.
  /// `look_in_store`: once caught up, also ask the store whether another process wrote
  /// events this one was never told of (they are then read from there).
  Batch poll(const HistoryReader& history, const LastCursorReader& last_cursor, std::size_t max_frames,
             bool look_in_store = false);
  /// [one caller at a time; never reads the store, so fit for an I/O thread] What poll()
  /// would hand out when the window alone holds it, the common case of a subscriber that
  /// keeps up; nullopt when the store must be read first (a catch-up, a feed that does not
  /// know its base yet, another process having written): then call poll() off the I/O
  /// thread. Spares a keeping-up subscriber two thread hops per wake.
  std::optional<Batch> poll_window(std::size_t max_frames);
  /// The last durable cursor delivered.
  std::int64_t cursor() const { return cursor_; }

  struct Item;
  struct Piece;

 private:
  friend class TimelineFeeds;
  struct CatchUp;
  struct Pending;
  TimelineSubscriber(TimelineFeeds& owner, std::shared_ptr<TimelineFeeds::Feed> feed, std::int64_t after,
                     std::function<void()> wake);
  void plan_catch_up_locked();
  bool run_catch_up(const HistoryReader& history, std::size_t max_frames, Batch& out);
  /// history(after, upto, limit), through the feed's shared pages where it can.
  std::optional<std::vector<Frame>> read_history(const HistoryReader& history, std::int64_t after,
                                                 std::int64_t upto, std::size_t limit);
  void read_window_locked(std::size_t max_frames, Batch& out);
  std::size_t delivered(const std::shared_ptr<Item>& item) const;

  TimelineFeeds& owner_;
  std::shared_ptr<TimelineFeeds::Feed> feed_;
  std::shared_ptr<std::function<void()>> wake_;
  std::atomic<bool> wake_pending_{false};
  std::uint64_t next_seq_ = 0;  // the next window entry to read; 0: catch up first
  std::int64_t cursor_;         // the last durable cursor delivered (or the start)
  std::uint64_t seen_store_epoch_ = 0;  // Feed::store_epoch as of this subscriber's last poll
  std::unordered_map<std::shared_ptr<Item>, std::size_t> delivered_;  // how much of each item was sent
  std::unique_ptr<CatchUp> catch_up_;
  /// Where this subscriber is, for the feed's shared pages (Feed::trim_history): the
  /// durable cursor it delivered last or reads the store after. Below the feed's
  /// evicted_cursor, it is behind the window and reads the store.
  std::atomic<std::int64_t> history_at_;
};

}  // namespace agentry::events
