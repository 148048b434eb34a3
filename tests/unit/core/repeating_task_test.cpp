#include "core/repeating_task.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace agentry::core {
namespace {
using namespace std::chrono_literals;

bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout = 5s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

TEST(RepeatingTask, RunsAgainAndAgainUntilStopped) {
  ThreadPool pool(2);
  std::atomic<int> runs{0};
  RepeatingTask task(pool, 10ms, [&] { ++runs; });
  EXPECT_TRUE(wait_until([&] { return runs.load() >= 3; }));
  task.stop();
  const int stopped_at = runs.load();
  std::this_thread::sleep_for(60ms);
  EXPECT_EQ(runs.load(), stopped_at) << "the job ran after stop() returned";
  task.stop();  // idempotent
}

TEST(RepeatingTask, StopWaitsForARunInProgressAndRunsDoNotOverlap) {
  ThreadPool pool(4);
  std::atomic<int> inside{0}, most_inside{0}, runs{0};
  std::atomic<bool> finished{false};
  auto task = std::make_unique<RepeatingTask>(pool, 1ms, [&] {
    int now = ++inside;
    int seen = most_inside.load();
    while (now > seen && !most_inside.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(30ms);
    ++runs;
    --inside;
    finished = true;
  });
  ASSERT_TRUE(wait_until([&] { return inside.load() == 1; }));
  task.reset();  // stops: must wait for the run in progress
  EXPECT_EQ(inside.load(), 0);
  EXPECT_TRUE(finished.load());
  EXPECT_EQ(most_inside.load(), 1);
}

TEST(RepeatingTask, AJobThatThrowsStillRunsAgain) {
  ThreadPool pool(1);
  std::atomic<int> runs{0};
  RepeatingTask task(pool, 5ms, [&] {
    ++runs;
    throw std::runtime_error("boom");
  });
  EXPECT_TRUE(wait_until([&] { return runs.load() >= 2; }));
}

}  // namespace
}  // namespace agentry::core
