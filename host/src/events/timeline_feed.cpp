// The writing half of the live timeline (timeline_feed.hpp): events published after
// their commit enter their run's window, the oldest leave it (deltas merged as they go),
// and feeds nobody reads are let go. Subscribers read the window in
// timeline_subscriber.cpp.

#include "events/timeline_feed.hpp"

#include "events/stream_metrics.hpp"
#include "events/timeline_window.hpp"

#include <algorithm>

namespace agentry::events {
namespace {

using Item = TimelineSubscriber::Item;

using namespace std::string_view_literals;  // kinds compared by size first (every event passes)

bool ends_session(std::string_view kind) { return kind == "run.finished"sv || kind == "session.detached"sv; }

std::string item_key(const core::TimelineEvent& e, const std::string& id) {
  return e.kind + '\x1f' + std::to_string(e.attempt_number.value_or(0)) + '\x1f' + id;
}

}  // namespace

// --- TimelineFeeds::Feed ---------------------------------------------------------------

std::shared_ptr<Item> TimelineFeeds::Feed::item_for(const core::TimelineEvent& e, const FeedLimits& limits) {
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
      forget_items();
      return item_for(e, limits);
    }
    if (slot) item_bytes -= std::min(item_bytes, slot->text.size());
    slot = std::make_shared<Item>();
    slot->kind = e.kind;
    slot->attempt_number = e.attempt_number;
    slot->id_field = std::move(field);
    slot->id = std::move(id);
    slot->append = append;
  }
  return slot;
}

void TimelineFeeds::Feed::evict_front(const FeedLimits& limits) {
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
    while (!evicted.empty() && (evicted.size() > limits.evicted_pieces || evicted_bytes > limits.evicted_bytes))
      drop_oldest_piece();
  }
  window.pop_front();
  ++first_seq;
}

void TimelineFeeds::Feed::drop_oldest_piece() {
  const Piece& old = evicted.front();
  evicted_bytes -= std::min(evicted_bytes, old.item->append ? old.end - old.begin : old.last->text.size());
  evicted.pop_front();
}

void TimelineFeeds::Feed::fit_budget(const FeedLimits& limits) {
  if (!budget) return;
  if (held() > charged) {
    // Windows leave a quarter of the budget to the events on their way to the store: the
    // writer never starves for the sake of a window.
    const std::size_t more = held() - charged;
    if (budget->try_take_below(more, budget->limit() - budget->limit() / 4)) {
      charged += more;
      return;
    }
    while (held() > charged && !window.empty()) evict_front(limits);
    while (held() > charged && !evicted.empty()) drop_oldest_piece();
    if (held() > charged) forget_items();
  }
  if (held() < charged) {
    budget->give_back(charged - held());
    charged = held();
  }
}

std::vector<std::shared_ptr<std::function<void()>>> TimelineFeeds::Feed::wakers() {
  std::vector<std::shared_ptr<std::function<void()>>> out;
  for (auto* s : subscribers)
    if (!s->wake_pending_.exchange(true)) out.push_back(s->wake_);
  return out;
}

// --- TimelineFeeds -------------------------------------------------------------------

TimelineFeeds::TimelineFeeds(FeedLimits limits) : limits_(limits) {}
TimelineFeeds::TimelineFeeds(FeedLimits limits, std::shared_ptr<core::ByteBudget> memory)
    : limits_(limits), memory_(std::move(memory)) {}
TimelineFeeds::~TimelineFeeds() { timeline_feeds().add(-static_cast<double>(feeds_.size())); }

void TimelineFeeds::erase_feed_locked(std::unordered_map<std::string, std::shared_ptr<Feed>>::iterator it) {
  feeds_.erase(it);
  timeline_feeds().add(-1);
}

std::shared_ptr<TimelineFeeds::Feed> TimelineFeeds::feed_of(const std::string& run_id, bool create) {
  std::lock_guard lock(mutex_);
  auto it = feeds_.find(run_id);
  if (it != feeds_.end()) {
    it->second->last_tick = ++tick_;
    return it->second;
  }
  if (!create) return nullptr;
  auto feed = std::make_shared<Feed>(run_id, memory_);
  feed->last_tick = ++tick_;
  feeds_.emplace(run_id, feed);
  timeline_feeds().add(1);
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
  for (std::size_t i = 0; i + limits_.idle_feeds < idle.size(); ++i) erase_feed_locked(feeds_.find(idle[i].second));
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
    // Durable frames in shared blocks: they leave the window in order (events/frame.hpp).
    FramePacker packer;
    const std::size_t old_size = feed->window.size();
    for (auto& e : events) {
      Feed::Entry entry;
      if (!e.ephemeral) {
        anchor = e.cursor;
        if (e.cursor <= feed->last_cursor) continue;  // a subscriber read it from the store already
        feed->last_cursor = e.cursor;
        if (ends_session(e.kind)) feed->session_over = true;
        else if (e.kind == "attempt.started"sv) feed->session_over = false;
        entry.cursor = entry.anchor = e.cursor;
        feed->window.push_back(std::move(entry));
        packer.add(&feed->window.back().frame, {e.run_id, e.cursor, e.kind, e.attempt_number, e.at, e.payload_text()},
                   e.cursor);
        continue;
      }
      if (anchor < feed->last_cursor) continue;  // written before what the store already showed
      auto item = feed->item_for(e, limits_);
      entry.anchor = anchor;
      entry.begin = item->size;
      if (item->append) {
        const auto& text = e.payload.at("text").as_string();
        item->text.append(text.data(), text.size());
        feed->item_bytes += text.size();
        item->size = item->text.size();
      } else {
        item->size += 1;
      }
      entry.end = item->size;
      item->last_at = e.at;
      entry.item = std::move(item);
      // Its own block: a merged delta keeps its newest frame long after its neighbours left.
      entry.frame = timeline_frame({e.run_id, 0, e.kind, e.attempt_number, e.at, e.payload_text()});
      feed->window.push_back(std::move(entry));
    }
    packer.flush();
    for (auto it = feed->window.begin() + static_cast<std::ptrdiff_t>(old_size); it != feed->window.end(); ++it)
      feed->window_bytes += it->frame->text.size();
    const bool watched = !feed->subscribers.empty();
    const std::size_t max_entries = watched ? limits_.window_entries : limits_.idle_window_entries;
    const std::size_t max_bytes = watched ? limits_.window_bytes : limits_.idle_window_bytes;
    while (!feed->window.empty() && (feed->window.size() > max_entries || feed->window_bytes > max_bytes))
      feed->evict_front(limits_);
    feed->fit_budget(limits_);
    wake = feed->wakers();
    drop = feed->session_over && feed->subscribers.empty();
  }
  if (drop) {
    std::lock_guard lock(mutex_);
    auto it = feeds_.find(run_id);
    if (it != feeds_.end() && it->second == feed) {
      std::lock_guard feed_lock(feed->mutex);
      if (feed->subscribers.empty()) erase_feed_locked(it);
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
    feed->forget_items();
    feed->fit_budget(limits_);
    feed->forget_history();
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
    if (empty) feed->forget_history();  // pages only serve subscribers catching up
  }
  if (!empty) return;
  auto it = feeds_.find(feed->run_id);
  if (it == feeds_.end() || it->second != feed) return;
  if (over) erase_feed_locked(it);
  else trim_idle_locked();
}

void TimelineFeeds::store_may_be_ahead(const std::function<bool(const std::string& run_id)>& driven_here) {
  std::vector<std::shared_ptr<Feed>> watched;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, feed] : feeds_) watched.push_back(feed);
  }
  for (const auto& feed : watched) {
    std::vector<std::shared_ptr<std::function<void()>>> wake;
    {
      std::lock_guard lock(feed->mutex);
      if (feed->subscribers.empty() || feed->relayed) continue;
    }
    if (driven_here(feed->run_id)) continue;  // its events are published here as they commit
    {
      std::lock_guard lock(feed->mutex);
      feed->store_epoch += 1;
      feed->forget_history();
      wake = feed->wakers();
    }
    for (const auto& w : wake) (*w)();
  }
}

void TimelineFeeds::set_relayed(const std::string& run_id, bool relayed) {
  auto feed = feed_of(run_id, relayed);
  if (!feed) return;
  std::lock_guard lock(feed->mutex);
  feed->relayed = relayed;
}

std::int64_t TimelineFeeds::last_cursor(const std::string& run_id) {
  auto feed = feed_of(run_id, false);
  if (!feed) return -1;
  std::lock_guard lock(feed->mutex);
  return feed->last_cursor;
}

std::size_t TimelineFeeds::feed_count() const {
  std::lock_guard lock(mutex_);
  return feeds_.size();
}

}  // namespace agentry::events
