#include "core/blocking_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace agentry::core {
namespace {

// The waits below bound a hang (a broken hold would deadlock), they time nothing.
constexpr auto hang_guard = std::chrono::seconds(10);

// Tasks and steps record what ran, in order; the strand serializes them, and the test
// reads the record only after a promise says the last one ran.
struct Record {
  std::mutex mutex;
  std::vector<std::string> steps;
  void add(std::string step) {
    std::lock_guard lock(mutex);
    steps.push_back(std::move(step));
  }
  std::vector<std::string> get() {
    std::lock_guard lock(mutex);
    return steps;
  }
};

TEST(BlockingPool, RunsEveryJobPostedBeforeItIsDestroyed) {
  std::atomic<int> ran{0};
  {
    BlockingPool pool(2);
    EXPECT_EQ(pool.threads(), 2u);
    for (int i = 0; i < 100; ++i) pool.post([&] { ++ran; });
  }
  EXPECT_EQ(ran.load(), 100);
}

TEST(BlockingPool, AJobThatThrowsDoesNotTakeThePoolDown) {
  std::promise<void> after;
  BlockingPool pool(1);
  pool.post([] { throw std::runtime_error("boom"); });
  pool.post([&] { after.set_value(); });
  EXPECT_EQ(after.get_future().wait_for(hang_guard), std::future_status::ready);
}

TEST(BlockingPool, ABlockingStepHoldsItsStrandButNotThePoolThread) {
  Record record;
  std::promise<void> blocking_started, release, other_ran, all_done;
  auto released = release.get_future().share();
  ThreadPool pool(1);  // one thread: a step that held it would starve the other strand
  BlockingPool blocking(1);
  Strand strand(pool), other(pool);
  strand.post([&] {
    record.add("task");
    strand.run_blocking(
        blocking,
        [&] {
          blocking_started.set_value();
          released.wait();
          record.add("blocking");
        },
        [&] { record.add("then"); });
  });
  ASSERT_EQ(blocking_started.get_future().wait_for(hang_guard), std::future_status::ready);
  // Posted while the step is in flight: they wait behind its continuation, in order.
  strand.post([&] { record.add("later 1"); });
  strand.post([&] {
    record.add("later 2");
    all_done.set_value();
  });
  // Meanwhile the pool's only thread serves another strand.
  other.post([&] { other_ran.set_value(); });
  ASSERT_EQ(other_ran.get_future().wait_for(hang_guard), std::future_status::ready);
  EXPECT_EQ(record.get(), (std::vector<std::string>{"task"})) << "the strand ran on during its step";
  release.set_value();
  ASSERT_EQ(all_done.get_future().wait_for(hang_guard), std::future_status::ready);
  EXPECT_EQ(record.get(), (std::vector<std::string>{"task", "blocking", "then", "later 1", "later 2"}));
}

TEST(BlockingPool, AnAsyncStepHoldsItsStrandWithNoThreadWaitingUntilResumed) {
  Record record;
  std::promise<Work> started;
  std::promise<void> other_ran, all_done;
  ThreadPool pool(1);  // one thread, and no blocking pool: nothing may wait for the work
  Strand strand(pool), other(pool);
  strand.post([&] {
    record.add("task");
    strand.run_async([&](Work resume) { started.set_value(std::move(resume)); }, [&] { record.add("then"); });
  });
  auto start = started.get_future();
  ASSERT_EQ(start.wait_for(hang_guard), std::future_status::ready);
  Work resume = start.get();
  strand.post([&] {
    record.add("later");
    all_done.set_value();
  });
  other.post([&] { other_ran.set_value(); });
  ASSERT_EQ(other_ran.get_future().wait_for(hang_guard), std::future_status::ready);
  EXPECT_EQ(record.get(), (std::vector<std::string>{"task"})) << "the strand ran on before it was resumed";
  std::thread elsewhere([resume] {
    resume();
    resume();  // a second call changes nothing
  });
  elsewhere.join();
  ASSERT_EQ(all_done.get_future().wait_for(hang_guard), std::future_status::ready);
  EXPECT_EQ(record.get(), (std::vector<std::string>{"task", "then", "later"}));
}

TEST(BlockingPool, AContinuationMayStartTheNextStepAndTheStrandStaysHeldThroughBoth) {
  Record record;
  std::promise<void> first_started, release_first, done;
  auto released = release_first.get_future().share();
  ThreadPool pool(2);
  BlockingPool blocking(2);
  Strand strand(pool);
  strand.post([&] {
    strand.run_blocking(
        blocking,
        [&] {
          first_started.set_value();
          released.wait();
          record.add("first");
        },
        [&] {
          record.add("then first");
          strand.run_blocking(blocking, [&] { record.add("second"); }, [&] { record.add("then second"); });
        });
  });
  ASSERT_EQ(first_started.get_future().wait_for(hang_guard), std::future_status::ready);
  strand.post([&] {
    record.add("later");
    done.set_value();
  });
  release_first.set_value();
  ASSERT_EQ(done.get_future().wait_for(hang_guard), std::future_status::ready);
  EXPECT_EQ(record.get(), (std::vector<std::string>{"first", "then first", "second", "then second", "later"}));
}

TEST(BlockingPool, AStepAskedForOffTheStrandIsTakenInTurn) {
  Record record;
  std::promise<void> done;
  ThreadPool pool(2);
  BlockingPool blocking(2);
  Strand strand(pool);
  strand.post([&] { record.add("before"); });
  strand.run_blocking(blocking, [&] { record.add("blocking"); }, [&] { record.add("then"); });
  strand.post([&] {
    record.add("after");
    done.set_value();
  });
  ASSERT_EQ(done.get_future().wait_for(hang_guard), std::future_status::ready);
  EXPECT_EQ(record.get(), (std::vector<std::string>{"before", "blocking", "then", "after"}));
}

TEST(BlockingPool, TheContinuationRunsEvenWhenTheBlockingPartThrows) {
  std::promise<void> then_ran;
  ThreadPool pool(1);
  BlockingPool blocking(1);
  Strand strand(pool);
  strand.post([&] {
    strand.run_blocking(blocking, [] { throw std::runtime_error("git broke"); }, [&] { then_ran.set_value(); });
  });
  EXPECT_EQ(then_ran.get_future().wait_for(hang_guard), std::future_status::ready);
}

TEST(BlockingPool, AStepInTheLastOfManyQueuedTasksStillHoldsTheStrand) {
  // drain() yields after 64 tasks; a step taken by the 64th must not let a second drain
  // start beside the continuation.
  Record record;
  std::promise<void> done;
  std::atomic<int> running{0};
  std::atomic<bool> overlapped{false};
  ThreadPool pool(4);
  BlockingPool blocking(1);
  Strand strand(pool);
  auto guarded = [&](std::string name) {
    if (running.fetch_add(1) != 0) overlapped = true;
    record.add(std::move(name));
    running.fetch_sub(1);
  };
  std::promise<void> gate;
  auto opened = gate.get_future().share();
  strand.post([&] { opened.wait(); });  // the rest queue up behind this one
  for (int i = 1; i < 64; ++i) {
    if (i == 63)
      strand.post([&] {
        guarded("step");
        strand.run_blocking(blocking, [&] { record.add("blocking"); }, [&] { guarded("then"); });
      });
    else
      strand.post([&, i] { guarded("task " + std::to_string(i)); });
  }
  for (int i = 0; i < 20; ++i) strand.post([&, i] { guarded("after " + std::to_string(i)); });
  strand.post([&] { done.set_value(); });
  gate.set_value();
  ASSERT_EQ(done.get_future().wait_for(hang_guard), std::future_status::ready);
  EXPECT_FALSE(overlapped);
  auto steps = record.get();
  ASSERT_EQ(steps.size(), 62u + 1 + 2 + 20);
  EXPECT_EQ(steps[62], "step");
  EXPECT_EQ(steps[63], "blocking");
  EXPECT_EQ(steps[64], "then");
  EXPECT_EQ(steps[65], "after 0");
}

}  // namespace
}  // namespace agentry::core
