// The backend runtime's executor: instances share a few threads yet each runs alone and in
// order; a stopped instance's late completions are dropped (and their handlers freed);
// handlers that block make the pool grow, and it shrinks back once they return; the
// pool's threads end with its last instance.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <boost/asio/steady_timer.hpp>

#include "agentry/plugin_common/runtime/executor.hpp"

namespace agentry::plugin_common::runtime {
namespace {
using namespace std::chrono_literals;

std::size_t thread_count() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// Posts to `executor` and waits until it ran.
void drain(Executor& executor) {
  std::promise<void> done;
  executor.post([&] { done.set_value(); });
  ASSERT_EQ(done.get_future().wait_for(10s), std::future_status::ready);
}

struct Instance {
  Executor executor;
  int inside = 0;             // handlers of this instance running now (must stay 0 or 1)
  bool overlapped = false;
  std::vector<int> order;     // what its handlers saw, in the order they ran
};

TEST(BackendExecutor, ManyInstancesShareAFewThreadsAndEachRunsAloneAndInOrder) {
  const std::size_t before = thread_count();
  std::vector<std::unique_ptr<Instance>> instances;
  for (int i = 0; i < 64; ++i) instances.push_back(std::make_unique<Instance>());
  EXPECT_LE(thread_count() - before, 9u) << "64 instances, one pool (8 threads at most, and its watchdog)";

  std::mutex threads_mutex;
  std::set<std::thread::id> threads;
  constexpr int per_instance = 300;
  // Posted from two threads at once, each post in its own order per instance.
  for (int k = 0; k < per_instance; ++k)
    for (auto& instance : instances)
      instance->executor.post([&, raw = instance.get(), k] {
        // Not atomic on purpose: a strand makes its handlers one at a time, so the sanitizer
        // build would report two of them touching this at once.
        if (++raw->inside != 1) raw->overlapped = true;
        raw->order.push_back(k);
        {
          std::lock_guard lock(threads_mutex);
          threads.insert(std::this_thread::get_id());
        }
        --raw->inside;
      });
  for (auto& instance : instances) drain(instance->executor);

  for (auto& instance : instances) {
    EXPECT_FALSE(instance->overlapped);
    ASSERT_EQ(instance->order.size(), std::size_t{per_instance});
    for (int k = 0; k < per_instance; ++k) ASSERT_EQ(instance->order[k], k);
  }
  EXPECT_GE(threads.size(), 1u);
  EXPECT_LE(threads.size(), 8u);
}

TEST(BackendExecutor, AStoppedInstancesLateCompletionsAreDroppedAndFreed) {
  Executor other;  // keeps the pool running, so the drop happens there, not at its end
  auto executor = std::make_unique<Executor>();
  std::atomic<bool> ran{false};
  auto witness = std::make_shared<int>(0);
  std::weak_ptr<int> freed = witness;
  auto timer = std::make_shared<boost::asio::steady_timer>(executor->get_executor(), 100ms);
  executor->post([&, timer, witness = std::move(witness)]() mutable {
    timer->async_wait([&ran, timer, witness = std::move(witness)](boost::system::error_code) { ran = true; });
  });
  drain(*executor);
  timer.reset();  // only the pending wait holds it now
  executor->stop();
  executor->post([&ran] { ran = true; });  // after stop: dropped too

  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!freed.expired() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(freed.expired()) << "the dropped handler (and what it held) was destroyed";
  EXPECT_FALSE(ran);
  drain(other);
}

TEST(BackendExecutor, StopAfterRunsTheLastWorkAndNothingOfTheInstanceRunsAfterIt) {
  Executor executor;
  std::atomic<long> turns{0};
  std::atomic<bool> last_ran{false};
  // Work that posts itself again forever, as a busy instance would.
  std::function<void()> spin = [&] {
    ++turns;
    executor.post(spin);
  };
  executor.post(spin);
  while (turns < 100) std::this_thread::sleep_for(1ms);
  executor.stop_after([&] { last_ran = true; });
  EXPECT_TRUE(last_ran);
  const long at_stop = turns;
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(turns, at_stop);
}

TEST(BackendExecutor, ThePoolsThreadsEndWithItsLastInstance) {
  const std::size_t before = thread_count();
  {
    Executor a, b;
    drain(a);
    drain(b);
    EXPECT_GT(thread_count(), before);
  }
  EXPECT_EQ(thread_count(), before) << "joined, as obligation 10 and deinit ask";
  Executor again;  // and a new instance starts a new pool
  drain(again);
}

TEST(BackendExecutor, HandlersThatBlockEveryThreadMakeThePoolGrowAndItShrinksAfter) {
  const std::size_t before = thread_count();
  Executor watcher;
  drain(watcher);
  const std::size_t base = thread_count() - before;  // the base threads and the watchdog

  // More blocked instances than any base pool has threads (8), as many runs sleeping in a
  // BUSY retry would be, or handlers the host gave up on.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<std::unique_ptr<Executor>> blocked;
  std::atomic<int> blocking{0};
  for (int i = 0; i < 10; ++i) {
    blocked.push_back(std::make_unique<Executor>());
    blocked.back()->post([&blocking, released] {
      ++blocking;
      released.wait();
      --blocking;
    });
  }
  // Another instance still gets its turn, a few ticks later, and so do all the blocked ones.
  drain(watcher);
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (blocking < 10 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(blocking, 10) << "every blocked instance got a thread";
  EXPECT_GE(thread_count() - before, 11u) << "ten blocked threads and one for the rest";
  EXPECT_LE(thread_count() - before, 13u) << "grown by what was needed, not more";
  drain(watcher);

  release.set_value();
  while (blocking > 0) std::this_thread::sleep_for(5ms);
  // The threads above the base count leave after two idle seconds.
  const auto shrink_deadline = std::chrono::steady_clock::now() + 20s;
  while (thread_count() - before > base && std::chrono::steady_clock::now() < shrink_deadline)
    std::this_thread::sleep_for(50ms);
  EXPECT_EQ(thread_count() - before, base);
  for (auto& executor : blocked) drain(*executor);
}

}  // namespace
}  // namespace agentry::plugin_common::runtime
