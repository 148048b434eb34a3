// The live timeline of each run (events/timeline_feed.hpp): what subscribers get, in
// which order, from the window, merged, or from the store; the stream memory's part is
// in timeline_feed_memory_test.cpp.

#include "timeline_feed_fixtures.hpp"

#include "events/stream_metrics.hpp"

#include <random>

namespace agentry::events {
namespace {
using namespace feed_test;

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

// GET /metrics counts the feeds held, whichever way they go: a finished session, the
// oldest idle feeds over the limit, or the daemon's feeds themselves.
TEST(TimelineFeed, TheFeedsHeldAreCountedForMetrics) {
  const double before = timeline_feeds().value();
  {
    FeedLimits limits;
    limits.idle_feeds = 2;
    TimelineFeeds feeds(limits);
    std::vector<std::unique_ptr<FakeRun>> runs;
    for (const char* id : {"r1", "r2", "r3", "r4"}) {
      runs.push_back(std::make_unique<FakeRun>(feeds, id));
      runs.back()->delta("m", "streaming unwatched");
      runs.back()->commit();
    }
    EXPECT_EQ(feeds.feed_count(), 2u);  // the two oldest idle feeds went
    EXPECT_EQ(timeline_feeds().value() - before, 2);
    runs.back()->durable("run.finished");
    runs.back()->commit();
    EXPECT_EQ(feeds.feed_count(), 1u);
    EXPECT_EQ(timeline_feeds().value() - before, 1);
  }
  EXPECT_EQ(timeline_feeds().value(), before);
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
