// The timeline feeds inside the daemon's stream memory: windows, merged deltas and the
// pages shared by subscribers catching up take from one budget, and give it back.

#include "timeline_feed_fixtures.hpp"

#include <algorithm>

namespace agentry::events {
namespace {
using namespace feed_test;

/// Limits whose window holds 8 events, so that subscribers soon read the store, and that
/// keep `history_pages` at least.
FeedLimits narrow_window(std::size_t history_pages) {
  FeedLimits limits;
  limits.window_entries = 8;
  limits.history_pages = history_pages;
  return limits;
}

/// Run "r1"'s feed on a stream memory of `bytes`, for the shared pages' tests: once the
/// test's subscribers and then the feed are gone, everything the feed took is back.
struct OneFeedOnStreamMemory {
  OneFeedOnStreamMemory(std::size_t bytes, FeedLimits limits)
      : memory(std::make_shared<core::ByteBudget>(bytes)),
        feeds(std::make_unique<TimelineFeeds>(limits, memory)),
        run(*feeds, "r1") {}
  ~OneFeedOnStreamMemory() {
    feeds.reset();
    EXPECT_EQ(memory->used(), 0u) << "the feed gave back all it took";
  }
  std::shared_ptr<TimelineSubscriber> subscribe() { return feeds->subscribe("r1", 0, [] {}); }
  /// Two subscribers from the start, each in a vector of its own (poll_in_turn's).
  using Readers = std::vector<std::shared_ptr<TimelineSubscriber>>;
  std::pair<Readers, Readers> two_readers() { return {{subscribe()}, {subscribe()}}; }
  /// What `reader` gets polling to the end, 512 frames a poll, through the store reads
  /// counted in `reads`.
  Received read_through(const Readers& reader) {
    std::vector<Received> got(1);
    poll_in_turn(reader, got, counting_page_reads(run, reads), run, 512);
    return got[0];
  }
  /// The windows' (and pages') share of it.
  std::size_t ceiling() const { return memory->limit() - memory->limit() / 4; }

  std::shared_ptr<core::ByteBudget> memory;
  std::unique_ptr<TimelineFeeds> feeds;
  FakeRun run;
  std::map<std::int64_t, int> reads;  // by page: how often read_through() read the store for it
};

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
  OneFeedOnStreamMemory on(64 << 20, narrow_window(2));
  auto& memory = on.memory;
  auto& run = on.run;
  auto [leader, follower] = on.two_readers();
  commit_notices(run, 6000);
  const std::size_t window_only = memory->used();
  EXPECT_EQ(on.read_through(leader).cursors, one_to(6000));
  // Every page wholly committed is kept, far more than the two kept at least, and
  // counted in the stream memory.
  constexpr std::int64_t full_pages = 6000 / 512;
  EXPECT_EQ(memory->used() - window_only, stored_bytes(run, 0, full_pages * 512));
  EXPECT_EQ(on.read_through(follower).cursors, one_to(6000));
  for (std::int64_t k = 0; k < full_pages; ++k) EXPECT_EQ(on.reads[k], 1) << "page " << k;
  leader.clear();
  follower.clear();
  EXPECT_EQ(memory->used(), window_only) << "the pages go with the last subscriber";
}

TEST(TimelineFeedMemory, SharedPagesPastTheFewKeptAtLeastGoOnceTheStreamMemoryIsHalfSpent) {
  OneFeedOnStreamMemory on(4 << 20, narrow_window(2));
  auto& memory = on.memory;
  auto& run = on.run;
  auto [leader, follower] = on.two_readers();
  commit_notices(run, 6000);
  const std::size_t window_only = memory->used();
  // Others (windows, events on their way to the store) hold half of it already.
  const std::size_t others = memory->limit() / 2 - window_only;
  memory->take(others);
  EXPECT_EQ(on.read_through(leader).cursors, one_to(6000));
  // Two pages stay, counted too: the two the follower, far behind, reads first.
  constexpr std::int64_t full_pages = 6000 / 512;
  EXPECT_EQ(memory->used() - window_only - others, stored_bytes(run, 0, 2 * 512));
  EXPECT_EQ(on.read_through(follower).cursors, one_to(6000));
  int read_again = 0;
  for (std::int64_t k = 0; k < full_pages; ++k) read_again += on.reads[k] == 2 ? 1 : 0;
  EXPECT_EQ(read_again, full_pages - 2) << "the follower read every page but those two again";
  memory->give_back(others);
  leader.clear();
  follower.clear();
  EXPECT_EQ(memory->used(), window_only);
}

TEST(TimelineFeedMemory, SharedPagesNeverTakeTheQuarterLeftToEventsOnTheirWayToTheStore) {
  OneFeedOnStreamMemory on(1 << 20, narrow_window(8));
  auto& memory = on.memory;
  auto& run = on.run;
  const std::size_t ceiling = on.ceiling();
  std::vector<std::shared_ptr<TimelineSubscriber>> subs{on.subscribe(),
                                                        on.subscribe()};
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

TEST(TimelineFeedMemory, TheWindowMakesRoomForPagesWhenEverySubscriberIsBehindIt) {
  OneFeedOnStreamMemory on(512 << 10, {});
  auto& memory = on.memory;
  auto& run = on.run;
  const std::size_t ceiling = on.ceiling();
  std::vector<std::shared_ptr<TimelineSubscriber>> subs{on.subscribe(),
                                                        on.subscribe()};
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

TEST(TimelineFeedMemory, SubscribersFromACursorTheWindowLeftCountAsBehindItFromTheStart) {
  OneFeedOnStreamMemory on(512 << 10, {});
  auto& memory = on.memory;
  auto& run = on.run;
  const std::size_t ceiling = on.ceiling();
  for (int i = 0; i < 60; ++i) commit_notices(run, 100);  // nobody watching: the window is small
  // Others hold all the room a page would need.
  const std::size_t others = ceiling - memory->used() - stored_bytes(run, 1024, 1536) / 2;
  memory->take(others);
  std::vector<std::shared_ptr<TimelineSubscriber>> late{on.subscribe(),
                                                        on.subscribe()};
  std::map<std::int64_t, int> reads;
  std::vector<Received> got(late.size());
  poll_in_turn(late, got, counting_page_reads(run, reads), run, 256);
  for (const auto& r : got) EXPECT_EQ(r.cursors, one_to(6000));
  // The first page too: the second was known to be behind before it polled, so the
  // window made room for the page the first one read.
  for (std::int64_t k = 0; k < 6000 / 512; ++k) EXPECT_EQ(reads[k], 1) << "page " << k;
  memory->give_back(others);
}

TEST(TimelineFeedMemory, WhileEverySubscriberIsBehindTheWindowPagesStayPastHalfTheStreamMemory) {
  FeedLimits limits;
  limits.history_pages = 2;
  OneFeedOnStreamMemory on(4 << 20, limits);
  auto& memory = on.memory;
  auto& run = on.run;
  const std::size_t ceiling = on.ceiling();
  for (int i = 0; i < 60; ++i) commit_notices(run, 100);  // nobody watching: the window is small
  const std::size_t window_only = memory->used();
  // Others hold more than half, and leave room under the ceiling for every page.
  const std::size_t others = memory->limit() / 2 + (100 << 10);
  memory->take(others);
  ASSERT_GT(ceiling - memory->used(), stored_bytes(run, 0, 6000));
  std::vector<std::shared_ptr<TimelineSubscriber>> leader{on.subscribe()};
  std::vector<std::shared_ptr<TimelineSubscriber>> follower{on.subscribe()};
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

TEST(TimelineFeedMemory, ASubscriberCatchingUpAloneKeepsNoMorePagesThanTheFew) {
  OneFeedOnStreamMemory on(64 << 20, narrow_window(2));
  auto& memory = on.memory;
  auto& run = on.run;
  std::vector<std::shared_ptr<TimelineSubscriber>> alone{on.subscribe()};
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

TEST(TimelineFeedMemory, TheWindowDoesNotMakeRoomForPagesWhileSomeoneReadsIt) {
  FeedLimits limits;
  limits.window_entries = 1500;
  OneFeedOnStreamMemory on(512 << 10, limits);
  auto& memory = on.memory;
  auto& run = on.run;
  auto reading = on.subscribe();
  Received live;
  for (int i = 0; i < 45; ++i) {
    commit_notices(run, 100);
    drain(*reading, run, live);  // keeps up, in the window
  }
  for (int i = 0; i < 15; ++i) commit_notices(run, 100);  // ... then has the whole window to read
  // The window and others leave room for one page, and two late subscribers read the
  // store side by side.
  const std::size_t ceiling = on.ceiling();
  const std::size_t window_only = memory->used();
  const std::size_t others = ceiling - window_only - stored_bytes(run, 1024, 1536) * 6 / 5;
  memory->take(others);
  std::vector<std::shared_ptr<TimelineSubscriber>> late{on.subscribe(),
                                                        on.subscribe()};
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
