// The reading half of the live timeline (timeline_feed.hpp): each subscriber reads its
// run's window from its own position, merges deltas when it falls behind, and catches
// up from the store once the window has moved past it. The window is written in
// timeline_feed.cpp.

#include "events/timeline_feed.hpp"

#include "events/stream_metrics.hpp"
#include "events/timeline_window.hpp"

#include <algorithm>
#include <limits>

namespace agentry::events {
namespace {

using Item = TimelineSubscriber::Item;
using Entry = TimelineFeeds::Feed::Entry;

/// A delta frame carrying [from, to) of the item: its own frame when that is exactly
/// what it carried, else a merged one.
Frame merged_frame(const std::string& run_id, const Item& item, std::size_t from, std::size_t to, const Frame& last) {
  if (!item.append) return last;
  std::string payload = "{";
  if (!item.id_field.empty()) {
    append_json_string(payload, item.id_field);
    payload += ':';
    append_json_string(payload, item.id);
    payload += ',';
  }
  payload += "\"text\":";
  append_json_string(payload, std::string_view(item.text).substr(from, to - from));
  payload += '}';
  return timeline_frame({run_id, 0, item.kind, item.attempt_number, item.last_at, payload, true});
}

}  // namespace

// --- TimelineSubscriber --------------------------------------------------------------

/// Catching up with a window that moved past this subscriber: durable events from the
/// store up to `target`, with the merged deltas that left the window placed after the
/// durable event they followed.
struct TimelineSubscriber::CatchUp {
  std::int64_t target = 0;
  std::uint64_t resume_seq = 0;
  struct Planned {
    std::int64_t anchor;
    Frame frame;
    std::shared_ptr<Item> item;
    std::size_t end;
  };
  std::deque<Planned> pieces;
};

/// Deltas of one item merged while reading the window behind.
struct TimelineSubscriber::Pending {
  std::shared_ptr<Item> item;
  std::size_t from = 0;
  std::size_t to = 0;
  Frame only;  // the one delta's own frame while nothing was merged into it
};

TimelineSubscriber::TimelineSubscriber(TimelineFeeds& owner, std::shared_ptr<TimelineFeeds::Feed> feed,
                                       std::int64_t after, std::function<void()> wake)
    : owner_(owner),
      feed_(std::move(feed)),
      wake_(std::make_shared<std::function<void()>>(std::move(wake))),
      cursor_(after),
      history_at_(after) {
  stream_subscribers("timeline").add(1);
}

TimelineSubscriber::~TimelineSubscriber() {
  owner_.unsubscribe(*this);
  stream_subscribers("timeline").add(-1);
}

std::size_t TimelineSubscriber::delivered(const std::shared_ptr<Item>& item) const {
  auto it = delivered_.find(item);
  return it == delivered_.end() ? 0 : it->second;
}

void TimelineSubscriber::plan_catch_up_locked() {
  auto& feed = *feed_;
  catch_up_ = std::make_unique<CatchUp>();
  history_at_.store(cursor_, std::memory_order_relaxed);
  catch_up_->target = feed.evicted_cursor;
  catch_up_->resume_seq = feed.first_seq;
  for (auto& piece : feed.evicted) {
    if (piece.anchor < cursor_) continue;  // written before what this subscriber has seen
    const std::size_t from = std::max(piece.begin, delivered(piece.item));
    if (from >= piece.end) continue;
    Frame frame;
    if (from == piece.begin) {
      if (!piece.whole)
        piece.whole = piece.end - piece.begin == 1 && !piece.item->append
                          ? piece.last
                          : merged_frame(feed.run_id, *piece.item, piece.begin, piece.end, piece.last);
      frame = piece.whole;
    } else {
      frame = merged_frame(feed.run_id, *piece.item, from, piece.end, piece.last);
    }
    catch_up_->pieces.push_back({piece.anchor, std::move(frame), piece.item, piece.end});
  }
  // Forget items nobody else holds any more.
  if (delivered_.size() > 64)
    std::erase_if(delivered_, [](const auto& kv) { return kv.first.use_count() == 1; });
}

bool TimelineSubscriber::run_catch_up(const HistoryReader& history, std::size_t max_frames, Batch& out) {
  auto& plan = *catch_up_;
  auto emit_pieces_before = [&](std::int64_t cursor) {
    while (!plan.pieces.empty() && plan.pieces.front().anchor < cursor) {
      auto& p = plan.pieces.front();
      out.frames.push_back(std::move(p.frame));
      auto& sent = delivered_[p.item];
      sent = std::max(sent, p.end);
      plan.pieces.pop_front();
    }
  };
  if (cursor_ >= plan.target && !history(cursor_, cursor_, 1)) {  // nothing to read; is the run still there?
    out.closed = true;
    return false;
  }
  std::size_t bytes = 0;
  while (cursor_ < plan.target) {
    if (out.frames.size() >= max_frames || bytes >= owner_.limits().poll_bytes) return false;
    const std::size_t limit = std::min<std::size_t>(500, max_frames - out.frames.size());
    auto page = read_history(history, cursor_, plan.target, limit);
    if (!page) {
      out.closed = true;
      return false;
    }
    for (auto& frame : *page) {
      emit_pieces_before(frame->cursor);
      cursor_ = frame->cursor;
      bytes += frame->text.size();
      out.frames.push_back(std::move(frame));
    }
    if (page->size() < limit) cursor_ = std::max(cursor_, plan.target);  // the store holds no more (reset)
  }
  emit_pieces_before(std::numeric_limits<std::int64_t>::max());
  next_seq_ = plan.resume_seq;
  catch_up_.reset();
  std::lock_guard lock(feed_->mutex);
  history_at_.store(cursor_, std::memory_order_relaxed);
  feed_->trim_history(owner_.limits());  // the pages it alone was reading go
  return true;
}

std::optional<std::vector<Frame>> TimelineSubscriber::read_history(const HistoryReader& history, std::int64_t after,
                                                                  std::int64_t upto, std::size_t limit) {
  using Feed = TimelineFeeds::Feed;
  constexpr std::int64_t size = Feed::history_page;
  std::vector<Frame> out;
  std::int64_t next = after;  // the frames wanted have cursors in (next, upto]
  while (next < upto && out.size() < limit) {
    const std::int64_t k = next / size;
    std::shared_ptr<const std::vector<Frame>> page;
    std::uint64_t generation = 0;
    bool cacheable = false;
    {
      std::lock_guard lock(feed_->mutex);
      history_at_.store(next, std::memory_order_relaxed);
      if (auto it = feed_->history_pages.find(k); it != feed_->history_pages.end()) page = it->second.frames;
      generation = feed_->history_generation;
      cacheable = (k + 1) * size <= feed_->last_cursor;  // every cursor of the page is committed
    }
    if (!page) {
      if (!cacheable) {
        // The newest events: read straight, as asked (nobody else will want this page as it is).
        auto rest = history(next, upto, limit - out.size());
        if (!rest) return std::nullopt;
        for (auto& f : *rest) out.push_back(std::move(f));
        return out;
      }
      auto read = history(k * size, (k + 1) * size, static_cast<std::size_t>(size));
      if (!read) return std::nullopt;
      page = std::make_shared<const std::vector<Frame>>(std::move(*read));
      std::lock_guard lock(feed_->mutex);
      if (feed_->history_generation == generation) feed_->keep_history(k, page, owner_.limits());
    }
    for (const auto& f : *page) {
      if (f->cursor <= next) continue;
      if (f->cursor > upto || out.size() >= limit) return out;
      out.push_back(f);
    }
    next = (k + 1) * size;
  }
  return out;
}

void TimelineFeeds::Feed::forget_history() {
  history_pages.clear();
  if (budget && history_bytes > 0) budget->give_back(history_bytes);
  history_bytes = 0;
  ++history_generation;
}

void TimelineFeeds::Feed::keep_history(std::int64_t k, std::shared_ptr<const std::vector<Frame>> frames,
                                       const FeedLimits& limits) {
  if (history_pages.contains(k)) return;  // another subscriber read it meanwhile
  std::size_t bytes = 0;
  for (const auto& f : *frames) bytes += f->text.size();
  if (budget && !take_for_page(bytes, limits)) return;  // its reader uses it alone
  history_pages.emplace(k, HistoryPage{std::move(frames), bytes});
  history_bytes += bytes;
  trim_history(limits);
}

bool TimelineFeeds::Feed::take_for_page(std::size_t bytes, const FeedLimits& limits) {
  // Under the windows' ceiling: a page never takes the quarter left to events on their
  // way to the store.
  const std::size_t ceiling = budget->limit() - budget->limit() / 4;
  const auto taken = [&] { return budget->try_take_below(bytes, ceiling); };
  if (taken()) return true;
  // Not even all this feed holds would make room: nothing is let go for it.
  if (budget->used() + bytes > ceiling + held() + history_bytes) return false;
  // First the pages nobody catching up will read again.
  for (auto page = furthest_page(); page.gap == no_reader; page = furthest_page()) {
    drop_page(page.at);
    if (taken()) return true;
  }
  // Every subscriber is behind the window, reading the store: the window's oldest
  // entries are read after any page they are reading, so those make room next (they
  // are read from the store in their turn).
  if (every_subscriber_behind()) {
    const std::size_t over = budget->used() + bytes > ceiling ? budget->used() + bytes - ceiling : 0;
    const std::size_t keep = held() > over ? held() - over : 0;
    while (!window.empty() && window.front().cursor > 0 && held() > keep) evict_front(limits);
    fit_budget(limits);  // gives back what left
    if (taken()) return true;
  }
  // Then the pages whose readers are furthest from them.
  while (!history_pages.empty()) {
    drop_page(furthest_page().at);
    if (taken()) return true;
  }
  return false;
}

bool TimelineFeeds::Feed::behind(const TimelineSubscriber& s) const {
  return s.history_at_.load(std::memory_order_relaxed) < evicted_cursor;
}

bool TimelineFeeds::Feed::every_subscriber_behind() const {
  return !subscribers.empty() &&
         std::all_of(subscribers.begin(), subscribers.end(), [this](const auto* s) { return behind(*s); });
}

void TimelineFeeds::Feed::trim_history(const FeedLimits& limits) {
  // Pages nobody catching up will read again go, but for the few kept at least (a late
  // subscriber may want them) while someone still catches up. Past those few, pages stay
  // while the stream memory is less than half spent, or while every subscriber reads the
  // store (the window then waits for them).
  const bool anyone_behind =
      std::any_of(subscribers.begin(), subscribers.end(), [this](const auto* s) { return behind(*s); });
  if (!anyone_behind) return forget_history();
  while (history_pages.size() > limits.history_pages) {
    const auto page = furthest_page();
    const bool room = budget && (budget->used() <= budget->limit() / 2 || every_subscriber_behind());
    if (page.gap != no_reader && room) return;
    drop_page(page.at);
  }
}

TimelineFeeds::Feed::FurthestPage TimelineFeeds::Feed::furthest_page() {
  FurthestPage furthest{history_pages.end(), std::numeric_limits<std::int64_t>::min()};
  for (auto it = history_pages.begin(); it != history_pages.end(); ++it) {
    // The page holds cursors (first, first + history_page]; a subscriber reads it while
    // it reads the store after a cursor below its end.
    const std::int64_t first = it->first * history_page;
    std::optional<std::int64_t> nearest;  // the reader behind the page closest to it
    for (const auto* s : subscribers) {
      const std::int64_t at = s->history_at_.load(std::memory_order_relaxed);
      if (behind(*s) && at < first + history_page && (!nearest || at > *nearest)) nearest = at;
    }
    const std::int64_t gap = nearest ? first - *nearest : no_reader;
    if (gap >= furthest.gap) furthest = {it, gap};  // of equals, the later page goes
  }
  return furthest;
}

void TimelineFeeds::Feed::drop_page(std::map<std::int64_t, HistoryPage>::iterator page) {
  history_bytes -= page->second.bytes;
  if (budget) budget->give_back(page->second.bytes);
  history_pages.erase(page);
}

void TimelineSubscriber::read_window_locked(std::size_t max_frames, Batch& out) {
  auto& feed = *feed_;
  const std::size_t available = feed.end_seq() - next_seq_;
  const bool behind = available > owner_.limits().behind;
  std::vector<Pending> pending;
  auto flush = [&] {
    for (auto& p : pending)
      out.frames.push_back(p.only ? std::move(p.only) : merged_frame(feed.run_id, *p.item, p.from, p.to, nullptr));
    pending.clear();
  };
  const std::size_t merge_bytes = owner_.limits().merge_bytes;
  std::size_t bytes = 0;  // of the frames taken so far, roughly: a poll hands out a bounded amount
  std::size_t index = next_seq_ - feed.first_seq;
  for (; index < feed.window.size() && out.frames.size() + pending.size() < max_frames &&
         bytes < owner_.limits().poll_bytes;
       ++index) {
    const Entry& e = feed.window[index];
    bytes += e.frame->text.size();
    if (e.cursor > 0) {
      if (e.cursor <= cursor_) continue;
      flush();
      out.frames.push_back(e.frame);
      cursor_ = e.cursor;
      continue;
    }
    if (e.anchor < cursor_) continue;
    auto& sent = delivered_[e.item];
    const std::size_t from = std::max(e.begin, sent);
    if (from >= e.end) continue;
    sent = e.end;
    if (!behind) {
      flush();
      out.frames.push_back(from == e.begin ? e.frame : merged_frame(feed.run_id, *e.item, from, e.end, e.frame));
      continue;
    }
    auto joined = std::find_if(pending.begin(), pending.end(), [&](const Pending& p) {
      return p.item == e.item && p.to == from && (!e.item->append || e.end - p.from <= merge_bytes);
    });
    if (joined != pending.end()) {
      conflated_deltas().inc();
      joined->to = e.end;
      joined->only = e.item->append ? nullptr : e.frame;  // replace: the newest is the merge
    } else {
      pending.push_back({e.item, from, e.end, from == e.begin ? e.frame : nullptr});
    }
  }
  flush();
  next_seq_ = feed.first_seq + index;
  history_at_.store(cursor_, std::memory_order_relaxed);
  out.more = next_seq_ < feed.end_seq();
}

std::optional<TimelineSubscriber::Batch> TimelineSubscriber::poll_window(std::size_t max_frames) {
  std::lock_guard lock(feed_->mutex);
  auto& feed = *feed_;
  if (catch_up_ || seen_store_epoch_ != feed.store_epoch || feed.last_cursor < 0 || next_seq_ < feed.first_seq ||
      (next_seq_ == feed.first_seq && cursor_ < feed.evicted_cursor))
    return std::nullopt;
  // Cleared under the feed's lock, before reading: a publish from here on wakes the next poll.
  wake_pending_ = false;
  Batch out;
  read_window_locked(max_frames, out);
  return out;
}

TimelineSubscriber::Batch TimelineSubscriber::poll(const HistoryReader& history, const LastCursorReader& last_cursor,
                                                   std::size_t max_frames, bool look_in_store) {
  Batch out;
  wake_pending_ = false;  // a publish from here on wakes the next poll
  {
    std::lock_guard lock(feed_->mutex);
    if (seen_store_epoch_ != feed_->store_epoch) {
      seen_store_epoch_ = feed_->store_epoch;
      look_in_store = true;  // another process wrote (TimelineFeeds::store_may_be_ahead)
    }
  }
  for (int round = 0; round < 4 && !out.closed && out.frames.size() < max_frames; ++round) {
    if (catch_up_) {
      if (!run_catch_up(history, max_frames, out)) {
        out.more = !out.closed;
        return out;
      }
      continue;
    }
    bool needs_base = false;
    {
      std::lock_guard lock(feed_->mutex);
      needs_base = feed_->last_cursor < 0;
      if (!needs_base) {
        // Behind the window, or at its start with durable events before it that only the
        // store has (the feed jumped ahead: another process wrote them).
        if (next_seq_ < feed_->first_seq || (next_seq_ == feed_->first_seq && cursor_ < feed_->evicted_cursor)) {
          plan_catch_up_locked();
          continue;
        }
        read_window_locked(max_frames, out);
        if (out.more || !look_in_store) return out;
      }
    }
    if (!needs_base) {
      // Caught up; events another process wrote are only in the store.
      look_in_store = false;
      auto last = last_cursor();
      if (!last) {
        out.closed = true;
        return out;
      }
      std::lock_guard lock(feed_->mutex);
      if (*last <= feed_->last_cursor) return out;
      feed_->evict_all(owner_.limits());
      feed_->last_cursor = feed_->evicted_cursor = *last;
      continue;
    }
    // Nothing was published since this feed began: what the store holds is the start.
    auto last = last_cursor();
    if (!last) {
      out.closed = true;
      return out;
    }
    std::lock_guard lock(feed_->mutex);
    feed_->know_base(*last);
  }
  out.more = !out.closed;
  return out;
}

}  // namespace agentry::events
