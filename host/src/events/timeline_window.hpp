#pragma once
// The inside of timeline_feed.hpp: each run's window of recent events and what left it,
// shared by the two halves that work on it. The feed writes it (timeline_feed.cpp:
// publishing, eviction, which feeds are kept); each subscriber reads it from its own
// position (timeline_subscriber.cpp: catch-up, conflation, polling). Internal to those
// two files.

#include "events/timeline_feed.hpp"

#include <deque>
#include <map>

namespace agentry::events {

/// One streamed item (a message, a reasoning summary, a tool's output) of one attempt:
/// the text all its deltas carried so far, which merged deltas are cut from. An item
/// whose deltas have no "text" is replaced whole by each one (a plan, a diff): merging
/// those keeps the newest, and offsets count deltas instead of bytes.
struct TimelineSubscriber::Item {
  std::string kind;
  std::optional<int> attempt_number;
  std::string id_field;  // "itemId" or "toolCallId"; empty when the deltas name none
  std::string id;
  bool append = true;
  std::string text;
  std::size_t size = 0;  // bytes of text, or deltas so far (replace)
  std::string last_at;
};

/// Deltas of one item that left the window, merged: [begin, end) of its text.
struct TimelineSubscriber::Piece {
  std::shared_ptr<Item> item;
  std::size_t begin = 0;
  std::size_t end = 0;
  std::int64_t anchor = 0;  // the last durable cursor written before them
  Frame last;               // the newest delta's own frame
  Frame whole;              // the merged frame for [begin, end), built once when needed
};

struct TimelineFeeds::Feed {
  using Item = TimelineSubscriber::Item;
  using Piece = TimelineSubscriber::Piece;

  /// One event in the window.
  struct Entry {
    Frame frame;
    std::int64_t cursor = 0;  // a durable event's cursor; 0 for a delta
    std::int64_t anchor = 0;  // durable: its own cursor; delta: the last durable cursor before it
    std::shared_ptr<Item> item;
    std::size_t begin = 0;
    std::size_t end = 0;
  };

  Feed(std::string id, std::shared_ptr<core::ByteBudget> memory) : run_id(std::move(id)), budget(std::move(memory)) {}
  ~Feed() {
    if (budget && charged + history_bytes > 0) budget->give_back(charged + history_bytes);
  }
  Feed(const Feed&) = delete;
  Feed& operator=(const Feed&) = delete;

  const std::string run_id;
  std::mutex mutex;
  std::deque<Entry> window;
  std::uint64_t first_seq = 1;  // the sequence number of window.front()
  std::size_t window_bytes = 0;
  std::int64_t last_cursor = -1;   // the newest durable cursor this feed knows; -1: none yet
  std::int64_t evicted_cursor = 0;  // durable events up to here are read from the store
  std::deque<Piece> evicted;
  std::size_t evicted_bytes = 0;
  std::unordered_map<std::string, std::shared_ptr<Item>> items;  // by kind, attempt and id
  std::size_t item_bytes = 0;  // the text of `items`, about
  /// The daemon's stream memory (null: no shared limit) and what this feed took of it
  /// for its window, its merged deltas and its items' text.
  const std::shared_ptr<core::ByteBudget> budget;
  std::size_t charged = 0;
  std::vector<TimelineSubscriber*> subscribers;
  bool session_over = false;
  std::uint64_t last_tick = 0;
  /// Grows each time the store may hold events this feed was not told of (another
  /// process drives the run): each subscriber then looks in the store once.
  std::uint64_t store_epoch = 0;
  /// Another member's stream of the run is relayed into this feed (api/holder_relay.hpp):
  /// it has what the store has, and more (the deltas), in order.
  bool relayed = false;

  /// Durable frames read from the store for subscribers catching up, in pages of cursors
  /// (k*history_page, (k+1)*history_page] by k, each read once and shared by every
  /// subscriber behind the window instead of each reading and copying its own. Only pages
  /// wholly committed (below last_cursor) are kept; a reset or another writer forgets them.
  /// Pages count in the daemon's stream memory, under the windows' ceiling (three
  /// quarters of it): a feed keeps FeedLimits::history_pages of them while they fit, and
  /// more while the stream memory is less than half spent or every subscriber is behind
  /// the window; a page nobody catching up will read again goes past those few, and every
  /// page goes once nobody catches up. A page that does not fit makes room from the pages
  /// nobody will read again, then from the window's oldest durable entries when every
  /// subscriber is behind the window (they read those after the page), then from the
  /// pages read furthest ahead.
  static constexpr std::int64_t history_page = 512;
  struct HistoryPage {
    std::shared_ptr<const std::vector<Frame>> frames;
    std::size_t bytes = 0;  // of the frames' text, taken from `budget`
  };
  std::map<std::int64_t, HistoryPage> history_pages;
  std::size_t history_bytes = 0;          // of every page together
  std::uint64_t history_generation = 0;  // grows whenever the pages are forgotten
  void forget_history();
  /// [mutex held] Keeps `frames` as page k if there is room for it, then lets pages go
  /// while it holds more than it may (trim_history).
  void keep_history(std::int64_t k, std::shared_ptr<const std::vector<Frame>> frames, const FeedLimits& limits);
  /// [mutex held, with a budget] Takes `bytes` for a page, making room as said above;
  /// false when there is none.
  bool take_for_page(std::size_t bytes, const FeedLimits& limits);
  /// [mutex held] Lets pages go while there are more than the limits allow.
  void trim_history(const FeedLimits& limits);
  /// [mutex held] Whether `s` (every subscriber) is behind the window: what it reads
  /// next only the store has.
  bool behind(const TimelineSubscriber& s) const;
  bool every_subscriber_behind() const;
  /// [mutex held] The page whose next reader is furthest from it (at), and how far (gap;
  /// no_reader when no subscriber catching up will read it again): such a page first,
  /// then the page furthest ahead of the reader behind it. Subscribers drift apart as
  /// they catch up at their sockets' pace; letting the lowest page go, as a plain LRU of
  /// a sequential read would, drops the pages the bulk of them is about to read whenever
  /// one runs ahead. With no page, `at` is the end and `gap` the lowest there is.
  static constexpr std::int64_t no_reader = std::numeric_limits<std::int64_t>::max();
  struct FurthestPage {
    std::map<std::int64_t, HistoryPage>::iterator at;
    std::int64_t gap;
  };
  FurthestPage furthest_page();
  void drop_page(std::map<std::int64_t, HistoryPage>::iterator page);

  std::uint64_t end_seq() const { return first_seq + window.size(); }

  void know_base(std::int64_t base) {
    if (last_cursor < 0) last_cursor = evicted_cursor = base;
  }

  /// The item `e` is a delta of; a new one when its text grew past the limit or the
  /// delta changed from appending to replacing (or back).
  std::shared_ptr<Item> item_for(const core::TimelineEvent& e, const FeedLimits& limits);
  /// The oldest window entry leaves: a durable event is then read from the store, a
  /// delta joins the merged record of evicted deltas.
  void evict_front(const FeedLimits& limits);

  /// The oldest merged delta is forgotten: subscribers behind it skip those deltas (the
  /// durable event that ends the item still has its whole text).
  void drop_oldest_piece();
  std::size_t held() const { return window_bytes + evicted_bytes + item_bytes; }
  /// [after the window changed] Takes what it now holds from the daemon's stream memory,
  /// or, refused, makes do with what it had: the oldest entries leave the window, then the
  /// merged deltas, then the items. Gives back what it no longer holds.
  void fit_budget(const FeedLimits& limits);
  /// Forgets every item (their text and merged deltas start over).
  void forget_items() {
    items.clear();
    item_bytes = 0;
  }

  /// Everything in the window leaves it: what follows comes from the store.
  void evict_all(const FeedLimits& limits) {
    while (!window.empty()) evict_front(limits);
  }

  /// [mutex held] The wakers of the subscribers not already woken, each marked woken;
  /// the caller calls them once the lock is let go.
  std::vector<std::shared_ptr<std::function<void()>>> wakers();
};

}  // namespace agentry::events
