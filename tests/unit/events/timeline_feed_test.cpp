#include "events/timeline_feed.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <random>

namespace agentry::events {
namespace {
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

void drain(TimelineSubscriber& s, FakeRun& run, Received& r, std::size_t max_frames = 1024) {
  for (int i = 0; i < 100000; ++i) {
    auto batch = s.poll(run.history(), run.last_cursor(), max_frames);
    const bool more = batch.more;
    r.take(batch);
    if (!more || batch.closed) return;
  }
  FAIL() << "the subscriber never caught up";
}

std::vector<std::int64_t> one_to(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 1; i <= n; ++i) out.push_back(i);
  return out;
}

/// Polls `subs` in turn, as their connections would, until none has more ready;
/// `after_round` runs after each round.
void poll_in_turn(const std::vector<std::shared_ptr<TimelineSubscriber>>& subs, std::vector<Received>& got,
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
void commit_notices(FakeRun& run, int count) {
  for (int i = 0; i < count; ++i) run.durable("notice", {{"index", i}});
  run.commit();
}

/// The run's store, counting how often each page of 512 cursors is read from it.
HistoryReader counting_page_reads(FakeRun& run, std::map<std::int64_t, int>& reads) {
  return [store = run.history(), &reads](std::int64_t after, std::int64_t upto, std::size_t limit) {
    ++reads[after / 512];
    return store(after, upto, limit);
  };
}

/// The text of the stored frames with cursors in (after, upto]: what a shared page of them holds.
std::size_t stored_bytes(FakeRun& run, std::int64_t after, std::int64_t upto) {
  const auto frames = run.history()(after, upto, std::numeric_limits<std::size_t>::max());
  std::size_t bytes = 0;
  for (const auto& f : frames.value()) bytes += f->text.size();
  return bytes;
}

/// Writes a message of `pieces` deltas in batches of `per_commit`, then its completion.
std::string write_message(FakeRun& run, const std::string& item, int pieces, int per_commit,
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

TEST(TimelineFeed, AFastSubscriberGetsEveryFrameAsPublished) {
  TimelineFeeds feeds;
  FakeRun run(feeds, "r1");
  int wakes = 0;
  auto sub = feeds.subscribe("r1", 0, [&] { ++wakes; });
  Received r;
  drain(*sub, run, r);
  run.durable("attempt.started");
  run.commit();
  const auto whole = write_message(run, "m1", 50, 5, [&] { drain(*sub, run, r); });
  run.durable("run.finished");
  run.commit();
  drain(*sub, run, r);
  EXPECT_GT(wakes, 1);
  EXPECT_EQ(r.cursors, one_to(run.last()));
  EXPECT_EQ(r.text["m1"], whole);
  EXPECT_EQ(r.conflated, 0);
  EXPECT_EQ(r.frames, 50 + 3);
  EXPECT_FALSE(r.delta_after_completed);
  EXPECT_FALSE(r.delta_after_finish);
}

TEST(TimelineFeed, ASubscriberLeftBehindByTheWindowStillGetsTheWholeTextInOrder) {
  FeedLimits limits;
  limits.window_entries = 16;
  TimelineFeeds feeds(limits);
  FakeRun run(feeds, "r1");
  auto sub = feeds.subscribe("r1", 0, [] {});
  Received r;
  drain(*sub, run, r);  // subscribed before anything was written
  run.durable("attempt.started");
  run.commit();
  std::map<std::string, std::string> expected;
  expected["m1"] = write_message(run, "m1", 300, 7);
  run.durable("tool.started");
  run.commit();
  expected["m2"] = write_message(run, "m2", 200, 3);
  run.durable("run.finished");
  run.commit();
  drain(*sub, run, r, 10);  // small polls: the catch-up goes over several
  EXPECT_EQ(r.cursors, one_to(run.last()));
  EXPECT_EQ(r.text, expected);
  EXPECT_EQ(r.completed, expected);
  EXPECT_GT(r.conflated, 0);
  EXPECT_LT(r.frames, 100);  // 500 deltas merged into a few
  EXPECT_FALSE(r.delta_after_completed);
  EXPECT_FALSE(r.delta_after_finish);
}

TEST(TimelineFeed, ASubscriberBehindInsideTheWindowGetsMergedDeltas) {
  TimelineFeeds feeds;
  FakeRun run(feeds, "r1");
  auto sub = feeds.subscribe("r1", 0, [] {});
  Received r;
  drain(*sub, run, r);
  const auto whole = write_message(run, "m1", 1000, 10);
  run.durable("run.finished");
  run.commit();
  drain(*sub, run, r);
  EXPECT_EQ(r.text["m1"], whole);
  EXPECT_EQ(r.cursors, one_to(run.last()));
  // The deltas merged into one per poll (a poll hands out about 128 KiB of frames),
  // then the two durable events.
  EXPECT_LE(r.frames, 4);
  EXPECT_GE(r.conflated, 1);
}

TEST(TimelineFeed, ASubscriberArrivingMidMessageGetsItsTextFromTheStart) {
  FeedLimits limits;
  limits.window_entries = 8;
  TimelineFeeds feeds(limits);
  FakeRun run(feeds, "r1");
  run.durable("attempt.started");
  run.commit();
  std::string whole;
  for (int i = 0; i < 40; ++i) {
    whole += std::to_string(i) + ",";
    run.delta("m1", std::to_string(i) + ",");
    run.commit();
  }
  Received r;
  auto sub = feeds.subscribe("r1", 0, [] {});
  drain(*sub, run, r);
  EXPECT_EQ(r.text["m1"], whole);
  EXPECT_EQ(r.cursors, one_to(1));
}

TEST(TimelineFeed, ALateSubscriberStartsFromTheStoreAndFromItsCursor) {
  FeedLimits limits;
  limits.window_entries = 8;
  TimelineFeeds feeds(limits);
  FakeRun run(feeds, "r1");
  for (int i = 0; i < 40; ++i) run.durable("notice", {{"index", i}});
  run.commit();
  const auto whole = write_message(run, "m1", 30, 4);
  run.durable("run.finished");
  run.commit();

  // The run is over and nobody was watching: its deltas are gone, its completed
  // message holds the whole text.
  Received all;
  auto everything = feeds.subscribe("r1", 0, [] {});
  drain(*everything, run, all);
  EXPECT_EQ(all.cursors, one_to(run.last()));
  EXPECT_EQ(all.completed["m1"], whole);
  EXPECT_TRUE(all.text.empty());

  Received tail;
  auto resumed = feeds.subscribe("r1", 35, [] {});
  drain(*resumed, run, tail);
  std::vector<std::int64_t> expected;
  for (std::int64_t c = 36; c <= run.last(); ++c) expected.push_back(c);
  EXPECT_EQ(tail.cursors, expected);
}

TEST(TimelineFeed, WhatAnotherProcessWroteIsLookedForInTheStoreUnlessTheFeedIsRelayed) {
  TimelineFeeds feeds;
  FakeRun run(feeds, "r1");
  int wakes = 0;
  auto sub = feeds.subscribe("r1", 0, [&] { ++wakes; });
  Received r;
  drain(*sub, run, r);
  for (int i = 0; i < 5; ++i) run.durable("notice", {{"index", i}});
  (void)run.commit_elsewhere();
  drain(*sub, run, r);
  EXPECT_TRUE(r.cursors.empty()) << "nobody told the feed";
  wakes = 0;
  feeds.store_may_be_ahead([](const std::string&) { return true; });  // driven here: published as written
  EXPECT_EQ(wakes, 0);
  feeds.store_may_be_ahead([](const std::string&) { return false; });
  EXPECT_EQ(wakes, 1);
  drain(*sub, run, r);
  EXPECT_EQ(r.cursors, one_to(5));

  // Relayed from the member that writes it: deltas and durable events arrive in its
  // order, and the store is left alone.
  feeds.set_relayed("r1", true);
  run.delta("m1", "hel");
  run.delta("m1", "lo");
  run.durable("message.completed", {{"text", "hello"}, {"itemId", "m1"}});
  const std::int64_t base = run.last();
  auto relayed = run.commit_elsewhere();
  feeds.store_may_be_ahead([](const std::string&) { return false; });
  EXPECT_EQ(wakes, 1) << "relayed: the store is left alone";
  feeds.publish("r1", base, std::move(relayed));
  drain(*sub, run, r);
  EXPECT_EQ(r.text["m1"], "hello");
  EXPECT_EQ(r.completed["m1"], "hello");
  EXPECT_FALSE(r.delta_after_completed);
  EXPECT_EQ(r.cursors, one_to(6));
  EXPECT_EQ(feeds.last_cursor("r1"), 6);
  wakes = 0;
  feeds.set_relayed("r1", false);
  feeds.store_may_be_ahead([](const std::string&) { return false; });
  EXPECT_EQ(wakes, 1) << "no longer relayed: it looks in the store again";
}

TEST(TimelineFeed, SubscribersCatchingUpShareThePagesReadFromTheStore) {
  FeedLimits limits;
  limits.window_entries = 8;
  TimelineFeeds feeds(limits);
  FakeRun run(feeds, "r1");
  auto first = feeds.subscribe("r1", 0, [] {});  // the feed is watched from the start
  commit_notices(run, 2000);
  std::size_t rows_read = 0;
  auto store = run.history();
  HistoryReader counting = [&](std::int64_t after, std::int64_t upto, std::size_t limit) {
    auto page = store(after, upto, limit);
    if (page) rows_read += page->size();
    return page;
  };
  std::vector<std::shared_ptr<TimelineSubscriber>> subs{first};
  for (int i = 0; i < 4; ++i) subs.push_back(feeds.subscribe("r1", 0, [] {}));
  std::vector<Received> got(subs.size());
  poll_in_turn(subs, got, counting, run, 300);  // each is behind the window and catches up
  for (const auto& r : got) EXPECT_EQ(r.cursors, one_to(2000));
  // Pages of 512 cursors wholly committed (up to 1536) are read once for all five; the
  // newest part is read by each. Without sharing, five subscribers read 10,000 rows.
  EXPECT_LT(rows_read, 1536 + 5 * 512);
}

TEST(TimelineFeed, ASubscriberFarAheadDoesNotPushOutThePagesTheOthersAreAboutToRead) {
  FeedLimits limits;
  limits.window_entries = 8;
  limits.history_pages = 3;
  TimelineFeeds feeds(limits);
  FakeRun run(feeds, "r1");
  auto leader = feeds.subscribe("r1", 0, [] {});
  commit_notices(run, 6000);
  std::map<std::int64_t, int> reads;  // by page: how often the store was read for it
  auto counting = counting_page_reads(run, reads);
  std::vector<std::shared_ptr<TimelineSubscriber>> group;
  for (int i = 0; i < 3; ++i) group.push_back(feeds.subscribe("r1", 0, [] {}));
  std::vector<Received> got(group.size());
  Received led;
  // The leader reads well ahead first, then runs ahead a page at each of the group's
  // steps: each page it reads is one the group needs only much later.
  for (int i = 0; i < 6; ++i) led.take(leader->poll(counting, run.last_cursor(), 512));
  poll_in_turn(group, got, counting, run, 256,
               [&] { led.take(leader->poll(counting, run.last_cursor(), 512)); });
  drain(*leader, run, led);
  EXPECT_EQ(led.cursors, one_to(6000));
  for (const auto& r : got) EXPECT_EQ(r.cursors, one_to(6000));
  // The group read each page of the store once between the three of them: the page it
  // is reading stays, and the leader's, far ahead, go first. (Letting the lowest page go
  // instead drops the group's page each time the leader reads one.)
  for (std::int64_t k = 0; k < 6000 / 512; ++k) EXPECT_LE(reads[k], 2) << "page " << k;
}

TEST(TimelineFeed, SharedPagesAreForgottenWhenTheTimelineIsReset) {
  FeedLimits limits;
  limits.window_entries = 8;
  TimelineFeeds feeds(limits);
  FakeRun run(feeds, "r1");
  auto watcher = feeds.subscribe("r1", 0, [] {});
  commit_notices(run, 1100);
  Received before;
  drain(*watcher, run, before);
  EXPECT_EQ(before.cursors, one_to(1100));
  run.clear();
  feeds.reset("r1");
  for (int i = 0; i < 3; ++i) run.durable("notice", {{"index", i}});
  run.commit();
  Received after;
  auto late = feeds.subscribe("r1", 0, [] {});
  drain(*late, run, after);
  EXPECT_EQ(after.cursors, (std::vector<std::int64_t>{1101, 1102, 1103}));
}

TEST(TimelineFeed, ASubscriberThatKeepsUpIsServedFromTheWindowAlone) {
  TimelineFeeds feeds;
  FakeRun run(feeds, "r1");
  run.durable("attempt.started");
  run.commit();
  auto sub = feeds.subscribe("r1", 0, [] {});
  Received r;
  EXPECT_FALSE(sub->poll_window(64)) << "a new feed learns its base from the store first";
  drain(*sub, run, r);
  run.durable("notice");
  run.delta("m1", "hi");
  run.commit();
  auto ready = sub->poll_window(64);
  ASSERT_TRUE(ready);
  r.take(*ready);
  EXPECT_EQ(r.cursors, one_to(2));
  EXPECT_EQ(r.text["m1"], "hi");
}

TEST(TimelineFeed, ADeletedRunClosesItsSubscribers) {
  TimelineFeeds feeds;
  FakeRun run(feeds, "r1");
  run.durable("attempt.started");
  run.commit();
  auto sub = feeds.subscribe("r1", 0, [] {});
  Received r;
  drain(*sub, run, r);
  EXPECT_FALSE(r.closed);
  run.remove();
  feeds.reset("r1");
  drain(*sub, run, r);
  EXPECT_TRUE(r.closed);
}

TEST(TimelineFeed, FeedsGoAwayWithTheirLastSubscriberOnceTheSessionIsOver) {
  TimelineFeeds feeds;
  FakeRun run(feeds, "r1");
  {
    auto sub = feeds.subscribe("r1", 0, [] {});
    run.durable("run.finished");
    run.commit();
    EXPECT_EQ(feeds.feed_count(), 1u);
  }
  EXPECT_EQ(feeds.feed_count(), 0u);
}

// Random writes and random polls: whatever the interleaving and the limits, every
// subscriber gets every durable event once, in order, each item's whole text, and no
// delta after its item's completion or the run's end.
TEST(TimelineFeed, RandomInterleavingsKeepTheRules) {
  for (unsigned seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    FeedLimits limits;
    limits.window_entries = 4 + rng() % 64;
    limits.behind = rng() % 16;
    TimelineFeeds feeds(limits);
    FakeRun run(feeds, "r" + std::to_string(seed));
    struct Sub {
      std::shared_ptr<TimelineSubscriber> s;
      Received r;
      std::size_t max_frames;
    };
    std::vector<Sub> subs;
    for (int i = 0; i < 3; ++i) subs.push_back({feeds.subscribe(run.id(), 0, [] {}), {}, 1 + rng() % 50});
    for (auto& s : subs) drain(*s.s, run, s.r, s.max_frames);
    std::map<std::string, std::string> expected;
    std::vector<std::string> open;
    int next_item = 0;
    for (int step = 0; step < 400; ++step) {
      const unsigned dice = rng() % 10;
      if (dice < 5) {
        if (open.empty() || rng() % 4 == 0) open.push_back("m" + std::to_string(next_item++));
        const auto& item = open[rng() % open.size()];
        const std::string piece = std::to_string(step) + ";";
        expected[item] += piece;
        run.delta(item, piece);
      } else if (dice < 6 && !open.empty()) {
        const std::size_t i = rng() % open.size();
        run.durable("message.completed", {{"itemId", open[i]}, {"text", expected[open[i]]}});
        open.erase(open.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (dice < 7) {
        run.durable("notice", {{"step", step}});
      } else {
        run.commit();
      }
      if (rng() % 3 == 0) {
        auto& s = subs[rng() % subs.size()];
        s.r.take(s.s->poll(run.history(), run.last_cursor(), s.max_frames));
      }
    }
    for (const auto& item : open) run.durable("message.completed", {{"itemId", item}, {"text", expected[item]}});
    std::erase_if(expected, [](const auto& kv) { return kv.second.empty(); });  // items that never streamed
    run.durable("run.finished");
    run.commit();
    for (auto& s : subs) {
      drain(*s.s, run, s.r, s.max_frames);
      SCOPED_TRACE("seed " + std::to_string(seed));
      EXPECT_EQ(s.r.cursors, one_to(run.last()));
      EXPECT_EQ(s.r.text, expected);
      EXPECT_FALSE(s.r.delta_after_completed);
      EXPECT_FALSE(s.r.delta_after_finish);
    }
  }
}

}  // namespace
}  // namespace agentry::events

namespace agentry::events {
namespace {

TEST(TimelineFeedMemory, WindowsShareTheDaemonsStreamMemoryShrinkPastItAndGiveItBack) {
  auto memory = std::make_shared<core::ByteBudget>(64 * 1024);
  const std::size_t windows_ceiling = memory->limit() - memory->limit() / 4;
  {
    TimelineFeeds feeds({}, memory);
    FakeRun a(feeds, "a");
    FakeRun b(feeds, "b");
    auto sub_a = feeds.subscribe("a", 0, [] {});
    auto sub_b = feeds.subscribe("b", 0, [] {});
    Received ra;
    Received rb;
    drain(*sub_a, a, ra);
    drain(*sub_b, b, rb);
    std::size_t peak = 0;
    for (auto* run : {&a, &b}) {
      run->durable("attempt.started");
      run->commit();
    }
    // Neither subscriber reads while both runs write far more than the budget holds.
    for (int i = 0; i < 40; ++i)
      for (auto* run : {&a, &b}) {
        for (int n = 0; n < 20; ++n) run->durable("notice", {{"text", std::string(200, 'x')}});
        run->commit();
        peak = std::max(peak, memory->used());
      }
    EXPECT_LE(peak, windows_ceiling);
    EXPECT_GT(peak, windows_ceiling / 2);
    // Whatever left the windows comes from the store: nothing is missing, in order.
    drain(*sub_a, a, ra);
    drain(*sub_b, b, rb);
    EXPECT_EQ(ra.cursors, one_to(a.last()));
    EXPECT_EQ(rb.cursors, one_to(b.last()));
    // A budget that others spent: the window makes do with what it has (here nothing).
    const std::size_t spent = windows_ceiling - memory->used();
    ASSERT_TRUE(memory->try_take_below(spent, windows_ceiling));
    const auto text = write_message(a, "m1", 50, 5);
    EXPECT_LE(memory->used(), windows_ceiling);
    drain(*sub_a, a, ra);
    EXPECT_EQ(ra.cursors, one_to(a.last()));
    EXPECT_EQ(ra.completed["m1"], text);
    memory->give_back(spent);
  }
  // The feeds are gone: everything they took is back.
  EXPECT_EQ(memory->used(), 0u);
}

TEST(TimelineFeedMemory, SharedPagesCountInTheStreamMemoryAndAreAsManyAsItAllows) {
  auto memory = std::make_shared<core::ByteBudget>(64 << 20);
  FeedLimits limits;
  limits.window_entries = 8;
  limits.history_pages = 2;
  {
    TimelineFeeds feeds(limits, memory);
    FakeRun run(feeds, "r1");
    std::vector<std::shared_ptr<TimelineSubscriber>> leader{feeds.subscribe("r1", 0, [] {})};
    std::vector<std::shared_ptr<TimelineSubscriber>> follower{feeds.subscribe("r1", 0, [] {})};
    commit_notices(run, 6000);
    const std::size_t window_only = memory->used();
    std::map<std::int64_t, int> reads;
    auto counting = counting_page_reads(run, reads);
    std::vector<Received> led(1);
    poll_in_turn(leader, led, counting, run, 512);
    EXPECT_EQ(led[0].cursors, one_to(6000));
    // Every page wholly committed is kept, far more than the two kept at least, and
    // counted in the stream memory.
    constexpr std::int64_t full_pages = 6000 / 512;
    EXPECT_EQ(memory->used() - window_only, stored_bytes(run, 0, full_pages * 512));
    std::vector<Received> followed(1);
    poll_in_turn(follower, followed, counting, run, 512);
    EXPECT_EQ(followed[0].cursors, one_to(6000));
    for (std::int64_t k = 0; k < full_pages; ++k) EXPECT_EQ(reads[k], 1) << "page " << k;
    leader.clear();
    follower.clear();
    EXPECT_EQ(memory->used(), window_only) << "the pages go with the last subscriber";
  }
  EXPECT_EQ(memory->used(), 0u);
}

TEST(TimelineFeedMemory, SharedPagesPastTheFewKeptAtLeastGoOnceTheStreamMemoryIsHalfSpent) {
  auto memory = std::make_shared<core::ByteBudget>(4 << 20);
  FeedLimits limits;
  limits.window_entries = 8;
  limits.history_pages = 2;
  {
    TimelineFeeds feeds(limits, memory);
    FakeRun run(feeds, "r1");
    std::vector<std::shared_ptr<TimelineSubscriber>> leader{feeds.subscribe("r1", 0, [] {})};
    std::vector<std::shared_ptr<TimelineSubscriber>> follower{feeds.subscribe("r1", 0, [] {})};
    commit_notices(run, 6000);
    const std::size_t window_only = memory->used();
    // Others (windows, events on their way to the store) hold half of it already.
    const std::size_t others = memory->limit() / 2 - window_only;
    memory->take(others);
    std::map<std::int64_t, int> reads;
    auto counting = counting_page_reads(run, reads);
    std::vector<Received> led(1);
    poll_in_turn(leader, led, counting, run, 512);
    EXPECT_EQ(led[0].cursors, one_to(6000));
    // Two pages stay, counted too: the two the follower, far behind, reads first.
    constexpr std::int64_t full_pages = 6000 / 512;
    EXPECT_EQ(memory->used() - window_only - others, stored_bytes(run, 0, 2 * 512));
    std::vector<Received> followed(1);
    poll_in_turn(follower, followed, counting, run, 512);
    EXPECT_EQ(followed[0].cursors, one_to(6000));
    int read_again = 0;
    for (std::int64_t k = 0; k < full_pages; ++k) read_again += reads[k] == 2 ? 1 : 0;
    EXPECT_EQ(read_again, full_pages - 2) << "the follower read every page but those two again";
    memory->give_back(others);
    leader.clear();
    follower.clear();
    EXPECT_EQ(memory->used(), window_only);
  }
  EXPECT_EQ(memory->used(), 0u);
}

TEST(TimelineFeedMemory, SharedPagesNeverTakeTheQuarterLeftToEventsOnTheirWayToTheStore) {
  auto memory = std::make_shared<core::ByteBudget>(1 << 20);
  const std::size_t ceiling = memory->limit() - memory->limit() / 4;
  FeedLimits limits;
  limits.window_entries = 8;
  {
    TimelineFeeds feeds(limits, memory);
    FakeRun run(feeds, "r1");
    std::vector<std::shared_ptr<TimelineSubscriber>> subs{feeds.subscribe("r1", 0, [] {}),
                                                          feeds.subscribe("r1", 0, [] {})};
    commit_notices(run, 6000);
    // Others hold all but about one page's room under the ceiling.
    const std::size_t others = ceiling - memory->used() - stored_bytes(run, 1024, 1536) * 3 / 2;
    memory->take(others);
    std::map<std::int64_t, int> reads;
    std::vector<Received> got(subs.size());
    std::size_t peak = 0;
    poll_in_turn(subs, got, counting_page_reads(run, reads), run, 256, [&] { peak = std::max(peak, memory->used()); });
    for (const auto& r : got) EXPECT_EQ(r.cursors, one_to(6000));
    EXPECT_LE(peak, ceiling);
    // Room for one page was enough for the two readers side by side to share each.
    for (std::int64_t k = 0; k < 6000 / 512; ++k) EXPECT_EQ(reads[k], 1) << "page " << k;
    memory->give_back(others);
  }
  EXPECT_EQ(memory->used(), 0u);
}

TEST(TimelineFeedMemory, TheWindowMakesRoomForPagesWhenEverySubscriberIsBehindIt) {
  auto memory = std::make_shared<core::ByteBudget>(512 << 10);
  const std::size_t ceiling = memory->limit() - memory->limit() / 4;
  {
    TimelineFeeds feeds({}, memory);
    FakeRun run(feeds, "r1");
    std::vector<std::shared_ptr<TimelineSubscriber>> subs{feeds.subscribe("r1", 0, [] {}),
                                                          feeds.subscribe("r1", 0, [] {})};
    for (int i = 0; i < 60; ++i) commit_notices(run, 100);
    // Neither read while the run wrote: the window took all it may, which leaves no room
    // for a page, and left them behind.
    ASSERT_LT(ceiling - memory->used(), stored_bytes(run, 1024, 1536));
    std::map<std::int64_t, int> reads;
    std::vector<Received> got(subs.size());
    std::size_t peak = 0;
    poll_in_turn(subs, got, counting_page_reads(run, reads), run, 256, [&] { peak = std::max(peak, memory->used()); });
    for (const auto& r : got) EXPECT_EQ(r.cursors, one_to(6000));
    EXPECT_LE(peak, ceiling);
    // The window's oldest entries, which both would read last, made room for the pages
    // they read side by side: each was read from the store once at most (the last ones
    // were still in the window when they got there).
    EXPECT_EQ(reads[0], 1);
    for (std::int64_t k = 1; k < 6000 / 512; ++k) EXPECT_LE(reads[k], 1) << "page " << k;
  }
  EXPECT_EQ(memory->used(), 0u);
}

TEST(TimelineFeedMemory, SubscribersFromACursorTheWindowLeftCountAsBehindItFromTheStart) {
  auto memory = std::make_shared<core::ByteBudget>(512 << 10);
  const std::size_t ceiling = memory->limit() - memory->limit() / 4;
  {
    TimelineFeeds feeds({}, memory);
    FakeRun run(feeds, "r1");
    for (int i = 0; i < 60; ++i) commit_notices(run, 100);  // nobody watching: the window is small
    // Others hold all the room a page would need.
    const std::size_t others = ceiling - memory->used() - stored_bytes(run, 1024, 1536) / 2;
    memory->take(others);
    std::vector<std::shared_ptr<TimelineSubscriber>> late{feeds.subscribe("r1", 0, [] {}),
                                                          feeds.subscribe("r1", 0, [] {})};
    std::map<std::int64_t, int> reads;
    std::vector<Received> got(late.size());
    poll_in_turn(late, got, counting_page_reads(run, reads), run, 256);
    for (const auto& r : got) EXPECT_EQ(r.cursors, one_to(6000));
    // The first page too: the second was known to be behind before it polled, so the
    // window made room for the page the first one read.
    for (std::int64_t k = 0; k < 6000 / 512; ++k) EXPECT_EQ(reads[k], 1) << "page " << k;
    memory->give_back(others);
  }
  EXPECT_EQ(memory->used(), 0u);
}

TEST(TimelineFeedMemory, WhileEverySubscriberIsBehindTheWindowPagesStayPastHalfTheStreamMemory) {
  auto memory = std::make_shared<core::ByteBudget>(4 << 20);
  const std::size_t ceiling = memory->limit() - memory->limit() / 4;
  FeedLimits limits;
  limits.history_pages = 2;
  {
    TimelineFeeds feeds(limits, memory);
    FakeRun run(feeds, "r1");
    for (int i = 0; i < 60; ++i) commit_notices(run, 100);  // nobody watching: the window is small
    const std::size_t window_only = memory->used();
    // Others hold more than half, and leave room under the ceiling for every page.
    const std::size_t others = memory->limit() / 2 + (100 << 10);
    memory->take(others);
    ASSERT_GT(ceiling - memory->used(), stored_bytes(run, 0, 6000));
    std::vector<std::shared_ptr<TimelineSubscriber>> leader{feeds.subscribe("r1", 0, [] {})};
    std::vector<std::shared_ptr<TimelineSubscriber>> follower{feeds.subscribe("r1", 0, [] {})};
    std::map<std::int64_t, int> reads;
    auto counting = counting_page_reads(run, reads);
    std::vector<Received> led(1);
    std::vector<Received> followed(1);
    // The leader reads six pages ahead while the follower waits, far behind; then the
    // follower reads everything while the leader waits, and the leader the rest.
    for (int i = 0; i < 6; ++i) led[0].take(leader[0]->poll(counting, run.last_cursor(), 512));
    poll_in_turn(follower, followed, counting, run, 512);
    poll_in_turn(leader, led, counting, run, 512);
    EXPECT_EQ(led[0].cursors, one_to(6000));
    EXPECT_EQ(followed[0].cursors, one_to(6000));
    // The six pages the leader read while both were behind stayed for the follower.
    for (std::int64_t k = 0; k < 6; ++k) EXPECT_EQ(reads[k], 1) << "page " << k;
    // Nobody reads the store any more: every page went.
    EXPECT_EQ(memory->used(), window_only + others);
    memory->give_back(others);
  }
  EXPECT_EQ(memory->used(), 0u);
}

TEST(TimelineFeedMemory, ASubscriberCatchingUpAloneKeepsNoMorePagesThanTheFew) {
  auto memory = std::make_shared<core::ByteBudget>(64 << 20);
  FeedLimits limits;
  limits.window_entries = 8;
  limits.history_pages = 2;
  {
    TimelineFeeds feeds(limits, memory);
    FakeRun run(feeds, "r1");
    std::vector<std::shared_ptr<TimelineSubscriber>> alone{feeds.subscribe("r1", 0, [] {})};
    commit_notices(run, 6000);
    const std::size_t window_only = memory->used();
    std::vector<Received> got(1);
    std::size_t peak = 0;
    poll_in_turn(alone, got, run.history(), run, 512, [&] { peak = std::max(peak, memory->used() - window_only); });
    EXPECT_EQ(got[0].cursors, one_to(6000));
    // The pages it read behind it are of no use to anyone: never more than two held.
    EXPECT_LE(peak, stored_bytes(run, 4096, 5120));
    EXPECT_EQ(memory->used(), window_only) << "once it caught up, no page is left";
  }
  EXPECT_EQ(memory->used(), 0u);
}

TEST(TimelineFeedMemory, TheWindowDoesNotMakeRoomForPagesWhileSomeoneReadsIt) {
  auto memory = std::make_shared<core::ByteBudget>(512 << 10);
  FeedLimits limits;
  limits.window_entries = 1500;
  {
    TimelineFeeds feeds(limits, memory);
    FakeRun run(feeds, "r1");
    auto reading = feeds.subscribe("r1", 0, [] {});
    Received live;
    for (int i = 0; i < 45; ++i) {
      commit_notices(run, 100);
      drain(*reading, run, live);  // keeps up, in the window
    }
    for (int i = 0; i < 15; ++i) commit_notices(run, 100);  // ... then has the whole window to read
    // The window and others leave room for one page, and two late subscribers read the
    // store side by side.
    const std::size_t ceiling = memory->limit() - memory->limit() / 4;
    const std::size_t window_only = memory->used();
    const std::size_t others = ceiling - window_only - stored_bytes(run, 1024, 1536) * 6 / 5;
    memory->take(others);
    std::vector<std::shared_ptr<TimelineSubscriber>> late{feeds.subscribe("r1", 0, [] {}),
                                                          feeds.subscribe("r1", 0, [] {})};
    std::vector<Received> got(late.size());
    poll_in_turn(late, got, run.history(), run, 256);
    for (const auto& r : got) EXPECT_EQ(r.cursors, one_to(6000));
    // The window lost nothing, and no page is left: nobody reads the store.
    EXPECT_EQ(memory->used(), window_only + others);
    // The one reading the window still finds there what it has to read.
    std::size_t store_reads = 0;
    auto store = run.history();
    HistoryReader counting = [&](std::int64_t after, std::int64_t upto, std::size_t limit) {
      ++store_reads;
      return store(after, upto, limit);
    };
    for (int i = 0; i < 10; ++i) live.take(reading->poll(counting, run.last_cursor(), 1024));
    EXPECT_EQ(live.cursors, one_to(6000));
    EXPECT_EQ(store_reads, 0u);
    memory->give_back(others);
  }
  EXPECT_EQ(memory->used(), 0u);
}

TEST(TimelineFeedMemory, FeedsGoneGiveEverythingBack) {
  auto memory = std::make_shared<core::ByteBudget>(1 << 20);
  {
    TimelineFeeds feeds({}, memory);
    FakeRun run(feeds, "r");
    auto sub = feeds.subscribe("r", 0, [] {});
    Received r;
    run.durable("attempt.started");
    run.commit();
    write_message(run, "m1", 200, 10);
    EXPECT_GT(memory->used(), 0u);
    drain(*sub, run, r);
    feeds.reset("r");  // a reset empties the window, the merged deltas and the items
    EXPECT_EQ(memory->used(), 0u);
    write_message(run, "m2", 20, 5);
    EXPECT_GT(memory->used(), 0u);
  }
  EXPECT_EQ(memory->used(), 0u);
}

}  // namespace
}  // namespace agentry::events
