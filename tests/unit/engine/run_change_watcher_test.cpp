// RunChangeWatcher: changed run ids reach the evaluation in batches, on the pool, after
// the gather time; stop() never waits on a drain that has not started, and waits for one
// that evaluates.

#include "engine/run_change_watcher.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace agentry::engine {
namespace {

using namespace std::chrono_literals;

/// What the evaluation was called with, and a way to wait for it.
struct Calls {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::vector<std::string>> batches;
  std::size_t ids = 0;

  void record(const std::vector<std::string>& batch) {
    std::lock_guard lock(mutex);
    batches.push_back(batch);
    ids += batch.size();
    changed.notify_all();
  }
  bool wait_for_ids(std::size_t n, std::chrono::milliseconds limit = 10s) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, limit, [&] { return ids >= n; });
  }
  std::size_t batch_count() {
    std::lock_guard lock(mutex);
    return batches.size();
  }
};

std::string id_of(int i) {
  char text[16];
  std::snprintf(text, sizeof text, "run-%03d", i);
  return text;
}

TEST(RunChangeWatcherTest, ChangesWithinTheGatherTimeReachTheEvaluationAsOneBatchInIdOrder) {
  core::ThreadPool pool(2);
  events::EventBus bus;
  Calls calls;
  // Long enough that the burst below lands inside it on any machine.
  RunChangeWatcher watcher(bus, pool, [&](const auto& ids) { calls.record(ids); }, 500ms);
  for (int i = 99; i >= 0; --i) bus.run_changed(id_of(i));
  bus.run_changed(id_of(7));  // again: looked at once
  ASSERT_TRUE(calls.wait_for_ids(100));
  std::this_thread::sleep_for(50ms);
  std::lock_guard lock(calls.mutex);
  ASSERT_EQ(calls.batches.size(), 1u);
  ASSERT_EQ(calls.batches[0].size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(calls.batches[0][static_cast<std::size_t>(i)], id_of(i));
}

TEST(RunChangeWatcherTest, ABatchHoldsAtMostMaxBatchIdsAndOneDrainTakesTheRest) {
  core::ThreadPool pool(2);
  events::EventBus bus;
  Calls calls;
  RunChangeWatcher watcher(bus, pool, [&](const auto& ids) { calls.record(ids); }, 500ms);
  const int n = static_cast<int>(RunChangeWatcher::max_batch) + 10;
  for (int i = 0; i < n; ++i) watcher.enqueue(id_of(i));
  ASSERT_TRUE(calls.wait_for_ids(static_cast<std::size_t>(n)));
  std::lock_guard lock(calls.mutex);
  ASSERT_EQ(calls.batches.size(), 2u);
  EXPECT_EQ(calls.batches[0].size(), RunChangeWatcher::max_batch);
  EXPECT_EQ(calls.batches[1].size(), 10u);
}

TEST(RunChangeWatcherTest, ChangesDuringAnEvaluationAreTakenByTheSameDrain) {
  core::ThreadPool pool(2);
  events::EventBus bus;
  Calls calls;
  std::mutex gate;
  std::unique_lock held(gate);
  RunChangeWatcher watcher(
      bus, pool,
      [&](const auto& ids) {
        if (ids.front() == "first") {
          std::lock_guard wait_for_the_test(gate);
        }
        calls.record(ids);
      },
      0ms);
  watcher.enqueue("first");
  // The drain is in its first evaluation, held by the gate: these wait for it.
  std::this_thread::sleep_for(50ms);
  watcher.enqueue("second");
  watcher.enqueue("third");
  held.unlock();
  ASSERT_TRUE(calls.wait_for_ids(3));
  std::lock_guard lock(calls.mutex);
  ASSERT_EQ(calls.batches.size(), 2u);
  EXPECT_EQ(calls.batches[1], (std::vector<std::string>{"second", "third"}));
}

TEST(RunChangeWatcherTest, StopDropsADrainStillGatheringAndReturnsAtOnce) {
  core::ThreadPool pool(2);
  events::EventBus bus;
  Calls calls;
  {
    RunChangeWatcher watcher(bus, pool, [&](const auto& ids) { calls.record(ids); }, 300ms);
    watcher.enqueue("a");
    const auto before = std::chrono::steady_clock::now();
    watcher.stop();
    EXPECT_LT(std::chrono::steady_clock::now() - before, 250ms);
    watcher.enqueue("b");  // after stop: ignored
    bus.run_changed("c");  // no longer listening
  }
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(calls.batch_count(), 0u);
}

TEST(RunChangeWatcherTest, StopWaitsForAnEvaluationInProgress) {
  core::ThreadPool pool(2);
  events::EventBus bus;
  std::atomic<bool> started{false};
  std::atomic<bool> finished{false};
  RunChangeWatcher watcher(
      bus, pool,
      [&](const auto&) {
        started = true;
        std::this_thread::sleep_for(200ms);
        finished = true;
      },
      0ms);
  watcher.enqueue("a");
  while (!started) std::this_thread::sleep_for(1ms);
  watcher.stop();
  EXPECT_TRUE(finished);
}

TEST(RunChangeWatcherTest, AnEvaluationThatThrowsDoesNotStopLaterOnes) {
  core::ThreadPool pool(2);
  events::EventBus bus;
  Calls calls;
  RunChangeWatcher watcher(
      bus, pool,
      [&](const auto& ids) {
        calls.record(ids);
        if (ids.front() == "bad") throw std::runtime_error("evaluation failed");
      },
      0ms);
  watcher.enqueue("bad");
  ASSERT_TRUE(calls.wait_for_ids(1));
  watcher.enqueue("good");
  ASSERT_TRUE(calls.wait_for_ids(2));
}

}  // namespace
}  // namespace agentry::engine
