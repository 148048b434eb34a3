#include "core/executor.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <vector>

namespace agentry::core {
namespace {

// Each test declares its pool last, so the pool joins its threads before anything its
// tasks touch is destroyed.

TEST(Executor, StrandRunsItsTasksOneAtATimeInOrder) {
  std::vector<int> order;
  std::atomic<int> running{0};
  std::atomic<bool> overlapped{false};
  std::promise<void> done;
  ThreadPool pool(4);
  Strand strand(pool);
  for (int i = 0; i < 500; ++i) {
    strand.post([&, i] {
      if (running.fetch_add(1) != 0) overlapped = true;
      order.push_back(i);  // unsynchronized on purpose: the strand must serialize
      running.fetch_sub(1);
      if (i == 499) done.set_value();
    });
  }
  done.get_future().wait();
  EXPECT_FALSE(overlapped);
  ASSERT_EQ(order.size(), 500u);
  for (int i = 0; i < 500; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
}

TEST(Executor, StrandsRunInParallelWithEachOther) {
  std::promise<void> a_started, release, b_ran;
  auto released = release.get_future().share();
  ThreadPool pool(2);
  Strand a(pool), b(pool);
  a.post([&] {
    a_started.set_value();
    released.wait();
  });
  a_started.get_future().wait();
  b.post([&] { b_ran.set_value(); });
  EXPECT_EQ(b_ran.get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
  release.set_value();
}

TEST(Executor, DelayedTasksRunUnlessCancelled) {
  std::promise<void> ran;
  std::atomic<bool> cancelled_ran{false};
  ThreadPool pool(1);
  auto handle = pool.post_after(std::chrono::milliseconds(50), [&] { cancelled_ran = true; });
  handle.cancel();
  pool.post_after(std::chrono::milliseconds(10), [&] { ran.set_value(); });
  EXPECT_EQ(ran.get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(cancelled_ran);
}

TEST(Executor, DestructionRunsQueuedTasks) {
  std::atomic<int> count{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 100; ++i) pool.post([&] { ++count; });
  }
  EXPECT_EQ(count, 100);
}

// Counts its destruction and, like a live run, cancels its own timer when destroyed.
struct CancelsOnDestruction {
  explicit CancelsOnDestruction(std::atomic<int>& counter) : destroyed(counter) {}
  std::atomic<int>& destroyed;
  TimerHandle other;
  ~CancelsOnDestruction() {
    other.cancel();
    ++destroyed;
  }
};

TEST(Executor, CancellingReleasesWhatTheTaskHoldsAtOnce) {
  std::atomic<int> destroyed{0};
  ThreadPool pool(1);
  auto holder = std::make_shared<CancelsOnDestruction>(destroyed);
  holder->other = pool.post_after(std::chrono::hours(1), [] {});
  auto handle = pool.post_after(std::chrono::hours(1), [holder] {});
  holder.reset();
  EXPECT_EQ(destroyed, 0);
  // The task held the last reference; its destructor cancels another timer of the same
  // pool, which must not wait on the lock the cancel is under.
  handle.cancel();
  EXPECT_EQ(destroyed, 1);
  handle.cancel();  // idempotent
}

TEST(Executor, AFiredTaskHoldingTheLastReferenceIsDestroyedOutsideTheLock) {
  std::atomic<int> destroyed{0};
  std::promise<void> ran;
  {
    ThreadPool pool(1);
    auto holder = std::make_shared<CancelsOnDestruction>(destroyed);
    holder->other = pool.post_after(std::chrono::hours(1), [] {});
    pool.post_after(std::chrono::milliseconds(5), [holder, &ran] { ran.set_value(); });
    holder.reset();
    EXPECT_EQ(ran.get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
    // Meanwhile another timer keeps the timer thread busy with the queue's lock.
    for (int i = 0; i < 100; ++i) pool.post_after(std::chrono::milliseconds(i % 7), [] {});
  }
  EXPECT_EQ(destroyed, 1);
}

TEST(Executor, PendingTimersAreDroppedUnlockedWhenThePoolStops) {
  std::atomic<int> destroyed{0};
  std::atomic<bool> ran{false};
  {
    ThreadPool pool(1);
    auto holder = std::make_shared<CancelsOnDestruction>(destroyed);
    holder->other = pool.post_after(std::chrono::hours(2), [] {});
    pool.post_after(std::chrono::hours(1), [holder, &ran] { ran = true; });
  }
  EXPECT_EQ(destroyed, 1);
  EXPECT_FALSE(ran);
}

TEST(Executor, CancelAfterThePoolIsGoneIsHarmless) {
  TimerHandle handle;
  {
    ThreadPool pool(1);
    handle = pool.post_after(std::chrono::hours(1), [] {});
  }
  handle.cancel();
  SUCCEED();
}

TEST(Executor, EarlierTimersOvertakeLaterOnes) {
  std::mutex m;
  std::vector<int> order;
  std::promise<void> both;
  ThreadPool pool(1);
  pool.post_after(std::chrono::milliseconds(300), [&] {
    std::lock_guard lock(m);
    order.push_back(2);
    both.set_value();
  });
  pool.post_after(std::chrono::milliseconds(10), [&] {
    std::lock_guard lock(m);
    order.push_back(1);
  });
  ASSERT_EQ(both.get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace agentry::core
