#pragma once
// What the timeline feed's tests share (timeline_feed_test.cpp, and
// timeline_feed_memory_test.cpp for the stream memory): a fake run whose store and writer
// publish to the feeds as the real ones do, what one subscriber received checked against
// docs/api.md's rules, and ways to write a run and poll its subscribers.

#include "events/timeline_feed.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace agentry::events::feed_test {
namespace json = boost::json;

/// A run's timeline as the store and the writer see it: durable events get cursors and
/// are kept; every write is published to the feeds as the store's listener would.
class FakeRun {
 public:
  FakeRun(TimelineFeeds& feeds, std::string id) : feeds_(feeds), id_(std::move(id)) {}

  void delta(const std::string& item, const std::string& text) {
    batch_.push_back(event("message.delta", {{"text", text}, {"itemId", item}}, true));
  }
  void durable(const std::string& kind, json::object payload = {}) {
    batch_.push_back(event(kind, std::move(payload), false));
  }
  /// Commits what was written since the last commit, and publishes it.
  void commit() {
    const std::int64_t base = last_;
    feeds_.publish(id_, base, commit_elsewhere());
  }
  void remove() { gone_ = true; }
  /// The store forgets the timeline (a reset); cursors go on from where they were.
  void clear() { stored_.clear(); }
  /// Commits what another process wrote: stored, never published to these feeds; the
  /// events as written, for a relay to publish.
  std::vector<core::TimelineEvent> commit_elsewhere() {
    for (auto& e : batch_) {
      e.payload_json = json::serialize(e.payload);
      if (e.ephemeral) continue;
      e.cursor = ++last_;
      stored_.push_back(timeline_frame({id_, e.cursor, e.kind, e.attempt_number, e.at, e.payload_json}, e.cursor));
    }
    std::vector<core::TimelineEvent> written = std::move(batch_);
    batch_.clear();
    return written;
  }

  HistoryReader history() {
    return [this](std::int64_t after, std::int64_t upto, std::size_t limit) -> std::optional<std::vector<Frame>> {
      if (gone_) return std::nullopt;
      std::vector<Frame> out;
      for (const auto& f : stored_)
        if (f->cursor > after && f->cursor <= upto && out.size() < limit) out.push_back(f);
      return out;
    };
  }
  LastCursorReader last_cursor() {
    return [this]() -> std::optional<std::int64_t> {
      if (gone_) return std::nullopt;
      return last_;
    };
  }
  const std::string& id() const { return id_; }
  std::int64_t last() const { return last_; }

 private:
  core::TimelineEvent event(std::string kind, json::object payload, bool ephemeral) {
    core::TimelineEvent e;
    e.run_id = id_;
    e.kind = std::move(kind);
    e.attempt_number = 1;
    e.at = "2026-12-01T00:00:00.000Z";
    e.payload = std::move(payload);
    e.ephemeral = ephemeral;
    return e;
  }

  TimelineFeeds& feeds_;
  std::string id_;
  std::vector<core::TimelineEvent> batch_;
  std::vector<Frame> stored_;
  std::int64_t last_ = 0;
  bool gone_ = false;
};

/// What one subscriber received, checked against the rules of docs/api.md.
struct Received {
  std::vector<std::int64_t> cursors;
  std::map<std::string, std::string> text;  // by item: the deltas' text joined
  std::map<std::string, std::string> completed;  // by item: message.completed's text
  int conflated = 0;
  int frames = 0;
  bool delta_after_finish = false;
  bool delta_after_completed = false;
  bool closed = false;

  void take(const TimelineSubscriber::Batch& batch) {
    closed = closed || batch.closed;
    for (const auto& frame : batch.frames) {
      ++frames;
      auto e = json::parse(frame->json()).as_object();
      const auto kind = std::string(e.at("kind").as_string());
      const auto& payload = e.at("payload").as_object();
      if (e.at("cursor").is_null()) {
        EXPECT_EQ(frame->cursor, 0);
        const auto item = std::string(payload.at("itemId").as_string());
        if (finished) delta_after_finish = true;
        if (completed.count(item)) delta_after_completed = true;
        text[item] += std::string(payload.at("text").as_string());
        if (e.contains("conflated")) ++conflated;
        continue;
      }
      EXPECT_EQ(frame->cursor, e.at("cursor").as_int64());
      cursors.push_back(frame->cursor);
      if (kind == "message.completed")
        completed[std::string(payload.at("itemId").as_string())] = std::string(payload.at("text").as_string());
      if (kind == "run.finished") finished = true;
    }
  }
  bool finished = false;
};

inline void drain(TimelineSubscriber& s, FakeRun& run, Received& r, std::size_t max_frames = 1024) {
  for (int i = 0; i < 100000; ++i) {
    auto batch = s.poll(run.history(), run.last_cursor(), max_frames);
    const bool more = batch.more;
    r.take(batch);
    if (!more || batch.closed) return;
  }
  FAIL() << "the subscriber never caught up";
}

inline std::vector<std::int64_t> one_to(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 1; i <= n; ++i) out.push_back(i);
  return out;
}

/// Polls `subs` in turn, as their connections would, until none has more ready;
/// `after_round` runs after each round.
inline void poll_in_turn(const std::vector<std::shared_ptr<TimelineSubscriber>>& subs, std::vector<Received>& got,
                  const HistoryReader& history, FakeRun& run, std::size_t max_frames,
                  const std::function<void()>& after_round = {}) {
  for (bool more = true; more;) {
    more = false;
    for (std::size_t i = 0; i < subs.size(); ++i) {
      auto batch = subs[i]->poll(history, run.last_cursor(), max_frames);
      more = more || batch.more;
      got[i].take(batch);
    }
    if (after_round) after_round();
  }
}

/// Commits `count` notices in one batch.
inline void commit_notices(FakeRun& run, int count) {
  for (int i = 0; i < count; ++i) run.durable("notice", {{"index", i}});
  run.commit();
}

/// The run's store, counting how often each page of 512 cursors is read from it.
inline HistoryReader counting_page_reads(FakeRun& run, std::map<std::int64_t, int>& reads) {
  return [store = run.history(), &reads](std::int64_t after, std::int64_t upto, std::size_t limit) {
    ++reads[after / 512];
    return store(after, upto, limit);
  };
}

/// The text of the stored frames with cursors in (after, upto]: what a shared page of them holds.
inline std::size_t stored_bytes(FakeRun& run, std::int64_t after, std::int64_t upto) {
  const auto frames = run.history()(after, upto, std::numeric_limits<std::size_t>::max());
  std::size_t bytes = 0;
  for (const auto& f : frames.value()) bytes += f->text.size();
  return bytes;
}

/// Writes a message of `pieces` deltas in batches of `per_commit`, then its completion.
inline std::string write_message(FakeRun& run, const std::string& item, int pieces, int per_commit,
                          const std::function<void()>& after_commit = {}) {
  std::string whole;
  for (int i = 0; i < pieces; ++i) {
    const std::string piece = "<" + item + ":" + std::to_string(i) + ">";
    whole += piece;
    run.delta(item, piece);
    if ((i + 1) % per_commit == 0) {
      run.commit();
      if (after_commit) after_commit();
    }
  }
  run.durable("message.completed", {{"text", whole}, {"itemId", item}});
  run.commit();
  if (after_commit) after_commit();
  return whole;
}

}  // namespace agentry::events::feed_test
