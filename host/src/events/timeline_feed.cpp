#include "events/timeline_feed.hpp"

#include <algorithm>
#include <deque>
#include <limits>

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

namespace {

using Item = TimelineSubscriber::Item;
using Piece = TimelineSubscriber::Piece;

struct Entry {
  Frame frame;
  std::int64_t cursor = 0;  // a durable event's cursor; 0 for a delta
  std::int64_t anchor = 0;  // durable: its own cursor; delta: the last durable cursor before it
  std::shared_ptr<Item> item;
  std::size_t begin = 0;
  std::size_t end = 0;
};

bool ends_session(const std::string& kind) { return kind == "run.finished" || kind == "session.detached"; }

std::string item_key(const core::TimelineEvent& e, const std::string& id) {
  return e.kind + '\x1f' + std::to_string(e.attempt_number.value_or(0)) + '\x1f' + id;
}

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
  return make_frame(timeline_envelope({run_id, 0, item.kind, item.attempt_number, item.last_at, payload, true}));
}

}  // namespace

struct TimelineFeeds::Feed {
  explicit Feed(std::string id) : run_id(std::move(id)) {}

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
  std::vector<TimelineSubscriber*> subscribers;
  bool session_over = false;
  std::uint64_t last_tick = 0;

  std::uint64_t end_seq() const { return first_seq + window.size(); }

  void know_base(std::int64_t base) {
    if (last_cursor < 0) last_cursor = evicted_cursor = base;
  }

  std::shared_ptr<Item> item_for(const core::TimelineEvent& e, const FeedLimits& limits) {
    std::string field;
    std::string id;
    for (const char* name : {"itemId", "toolCallId"})
      if (auto* v = e.payload.if_contains(name); v && v->is_string()) {
        field = name;
        id = std::string(v->as_string());
        break;
      }
    const auto* text = e.payload.if_contains("text");
    const bool append = text && text->is_string();
    auto& slot = items[item_key(e, id)];
    if (!slot || slot->append != append || (append && slot->text.size() > limits.item_bytes)) {
      if (items.size() > 1024) {  // a backend inventing ids: forget the others
        items.clear();
        return item_for(e, limits);
      }
      slot = std::make_shared<Item>();
      slot->kind = e.kind;
      slot->attempt_number = e.attempt_number;
      slot->id_field = std::move(field);
      slot->id = std::move(id);
      slot->append = append;
    }
    return slot;
  }

  void evict_front(const FeedLimits& limits) {
    Entry& front = window.front();
    window_bytes -= front.frame->text.size();
    if (front.cursor > 0) {
      evicted_cursor = std::max(evicted_cursor, front.cursor);
    } else {
      // Joins the newest piece of the same item written after the same durable event.
      Piece* joined = nullptr;
      for (auto it = evicted.rbegin(); it != evicted.rend() && it - evicted.rbegin() < 8 && it->anchor == front.anchor;
           ++it)
        if (it->item == front.item && it->end == front.begin &&
            (!front.item->append || front.end - it->begin <= limits.merge_bytes)) {
          joined = &*it;
          break;
        }
      const std::size_t cost = front.item->append ? front.end - front.begin : front.frame->text.size();
      if (joined) {
        joined->end = front.end;
        joined->last = front.frame;
        joined->whole.reset();
      } else {
        evicted.push_back({front.item, front.begin, front.end, front.anchor, front.frame, nullptr});
      }
      evicted_bytes += cost;
      while (!evicted.empty() && (evicted.size() > limits.evicted_pieces || evicted_bytes > limits.evicted_bytes)) {
        const Piece& old = evicted.front();
        evicted_bytes -= std::min(evicted_bytes, old.item->append ? old.end - old.begin : old.last->text.size());
        evicted.pop_front();
      }
    }
    window.pop_front();
    ++first_seq;
  }

  /// Everything in the window leaves it: what follows comes from the store.
  void evict_all(const FeedLimits& limits) {
    while (!window.empty()) evict_front(limits);
  }

  std::vector<std::shared_ptr<std::function<void()>>> wakers();
};

// --- TimelineFeeds -------------------------------------------------------------------

TimelineFeeds::TimelineFeeds(FeedLimits limits) : limits_(limits) {}
TimelineFeeds::~TimelineFeeds() = default;

std::shared_ptr<TimelineFeeds::Feed> TimelineFeeds::feed_of(const std::string& run_id, bool create) {
  std::lock_guard lock(mutex_);
  auto it = feeds_.find(run_id);
  if (it != feeds_.end()) {
    it->second->last_tick = ++tick_;
    return it->second;
  }
  if (!create) return nullptr;
  auto feed = std::make_shared<Feed>(run_id);
  feed->last_tick = ++tick_;
  feeds_.emplace(run_id, feed);
  trim_idle_locked();
  return feed;
}

void TimelineFeeds::trim_idle_locked() {
  std::vector<std::pair<std::uint64_t, std::string>> idle;
  for (auto& [id, feed] : feeds_) {
    std::lock_guard lock(feed->mutex);
    if (feed->subscribers.empty()) idle.emplace_back(feed->last_tick, id);
  }
  if (idle.size() <= limits_.idle_feeds) return;
  std::sort(idle.begin(), idle.end());
  for (std::size_t i = 0; i + limits_.idle_feeds < idle.size(); ++i) feeds_.erase(idle[i].second);
}

std::vector<std::shared_ptr<std::function<void()>>> TimelineFeeds::Feed::wakers() {
  std::vector<std::shared_ptr<std::function<void()>>> out;
  for (auto* s : subscribers)
    if (!s->wake_pending_.exchange(true)) out.push_back(s->wake_);
  return out;
}

void TimelineFeeds::publish(const std::string& run_id, std::int64_t base, std::vector<core::TimelineEvent>&& events) {
  auto feed = feed_of(run_id, true);
  std::vector<std::shared_ptr<std::function<void()>>> wake;
  bool drop = false;
  {
    std::lock_guard lock(feed->mutex);
    feed->know_base(base);
    // Events this feed never saw were written meanwhile (another process, a feed
    // dropped and made again): the store serves everything up to them.
    if (base > feed->last_cursor) {
      feed->evict_all(limits_);
      feed->last_cursor = feed->evicted_cursor = base;
    }
    std::int64_t anchor = base;
    for (auto& e : events) {
      Entry entry;
      if (!e.ephemeral) {
        anchor = e.cursor;
        if (e.cursor <= feed->last_cursor) continue;  // a subscriber read it from the store already
        feed->last_cursor = e.cursor;
        if (ends_session(e.kind)) feed->session_over = true;
        else if (e.kind == "attempt.started") feed->session_over = false;
        entry.cursor = entry.anchor = e.cursor;
        entry.frame = make_frame(
            timeline_envelope({e.run_id, e.cursor, e.kind, e.attempt_number, e.at, e.payload_json}), e.cursor);
      } else {
        if (anchor < feed->last_cursor) continue;  // written before what the store already showed
        auto item = feed->item_for(e, limits_);
        entry.anchor = anchor;
        entry.begin = item->size;
        if (item->append) {
          const auto& text = e.payload.at("text").as_string();
          item->text.append(text.data(), text.size());
          item->size = item->text.size();
        } else {
          item->size += 1;
        }
        entry.end = item->size;
        item->last_at = e.at;
        entry.item = std::move(item);
        entry.frame = make_frame(timeline_envelope({e.run_id, 0, e.kind, e.attempt_number, e.at, e.payload_json}));
      }
      feed->window_bytes += entry.frame->text.size();
      feed->window.push_back(std::move(entry));
    }
    const bool watched = !feed->subscribers.empty();
    const std::size_t max_entries = watched ? limits_.window_entries : limits_.idle_window_entries;
    const std::size_t max_bytes = watched ? limits_.window_bytes : limits_.idle_window_bytes;
    while (!feed->window.empty() && (feed->window.size() > max_entries || feed->window_bytes > max_bytes))
      feed->evict_front(limits_);
    wake = feed->wakers();
    drop = feed->session_over && feed->subscribers.empty();
  }
  if (drop) {
    std::lock_guard lock(mutex_);
    auto it = feeds_.find(run_id);
    if (it != feeds_.end() && it->second == feed) {
      std::lock_guard feed_lock(feed->mutex);
      if (feed->subscribers.empty()) feeds_.erase(it);
    }
  }
  for (auto& w : wake) (*w)();
}

void TimelineFeeds::reset(const std::string& run_id) {
  auto feed = feed_of(run_id, false);
  if (!feed) return;
  std::vector<std::shared_ptr<std::function<void()>>> wake;
  {
    std::lock_guard lock(feed->mutex);
    feed->first_seq = feed->end_seq() + 1;  // past every subscriber: all of them ask the store
    feed->window.clear();
    feed->window_bytes = 0;
    feed->evicted.clear();
    feed->evicted_bytes = 0;
    feed->items.clear();
    feed->evicted_cursor = std::max(feed->evicted_cursor, feed->last_cursor);
    wake = feed->wakers();
  }
  for (auto& w : wake) (*w)();
}

std::shared_ptr<TimelineSubscriber> TimelineFeeds::subscribe(const std::string& run_id, std::int64_t after,
                                                             std::function<void()> wake) {
  auto feed = feed_of(run_id, true);
  std::shared_ptr<TimelineSubscriber> subscriber(new TimelineSubscriber(*this, feed, after, std::move(wake)));
  {
    std::lock_guard lock(feed->mutex);
    feed->subscribers.push_back(subscriber.get());
    subscriber->wake_pending_ = true;
  }
  (*subscriber->wake_)();  // the first poll replays what it missed
  return subscriber;
}

void TimelineFeeds::unsubscribe(TimelineSubscriber& subscriber) {
  auto& feed = subscriber.feed_;
  std::lock_guard lock(mutex_);
  bool empty = false;
  bool over = false;
  {
    std::lock_guard feed_lock(feed->mutex);
    std::erase(feed->subscribers, &subscriber);
    empty = feed->subscribers.empty();
    over = feed->session_over;
  }
  if (!empty) return;
  auto it = feeds_.find(feed->run_id);
  if (it == feeds_.end() || it->second != feed) return;
  if (over) feeds_.erase(it);
  else trim_idle_locked();
}

std::size_t TimelineFeeds::feed_count() const {
  std::lock_guard lock(mutex_);
  return feeds_.size();
}

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
      cursor_(after) {}

TimelineSubscriber::~TimelineSubscriber() { owner_.unsubscribe(*this); }

std::size_t TimelineSubscriber::delivered(const std::shared_ptr<Item>& item) const {
  auto it = delivered_.find(item);
  return it == delivered_.end() ? 0 : it->second;
}

void TimelineSubscriber::plan_catch_up_locked() {
  auto& feed = *feed_;
  catch_up_ = std::make_unique<CatchUp>();
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
    auto page = history(cursor_, plan.target, limit);
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
  return true;
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
      joined->to = e.end;
      joined->only = e.item->append ? nullptr : e.frame;  // replace: the newest is the merge
    } else {
      pending.push_back({e.item, from, e.end, from == e.begin ? e.frame : nullptr});
    }
  }
  flush();
  next_seq_ = feed.first_seq + index;
  out.more = next_seq_ < feed.end_seq();
}

TimelineSubscriber::Batch TimelineSubscriber::poll(const HistoryReader& history, const LastCursorReader& last_cursor,
                                                   std::size_t max_frames, bool look_in_store) {
  Batch out;
  wake_pending_ = false;  // a publish from here on wakes the next poll
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
        if (next_seq_ < feed_->first_seq) {
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
