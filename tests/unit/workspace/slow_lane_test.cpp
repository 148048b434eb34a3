#include "workspace/slow_lane.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace agentry::workspace {
namespace {
using namespace std::chrono_literals;

TEST(SlowLane, RunsJobsAndReturnsTheirResult) {
  SlowLane lane(2, 2);
  auto result = lane.run<int>([] { return core::Result<int>(42); }, 5s);
  ASSERT_TRUE(result);
  EXPECT_EQ(*result, 42);
}

// A caller woken by its result may send its next request at once: the lane (one job, no
// queue, as the daemon's two and none) must have freed that job's place by then.
TEST(SlowLane, ACallerWokenByItsResultFindsRoomForItsNextJob) {
  SlowLane lane(1, 0);
  for (int i = 0; i < 3000; ++i) {
    auto result = lane.run<int>([i] { return core::Result<int>(i); }, 5s);
    ASSERT_TRUE(result) << "job " << i << ": " << result.error().message;
    ASSERT_EQ(*result, i);
  }
}

TEST(SlowLane, AFullLaneAnswersUnavailableAtOnce) {
  std::atomic<bool> release{false};  // outlives the lane, whose threads read it
  SlowLane lane(1, 1);
  auto blocker = [&release] {
    while (!release) std::this_thread::sleep_for(1ms);
  };
  ASSERT_TRUE(lane.post(blocker));
  ASSERT_TRUE(lane.post(blocker));
  const auto before = std::chrono::steady_clock::now();
  auto refused = lane.run<int>([] { return core::Result<int>(1); }, 5s);
  EXPECT_LT(std::chrono::steady_clock::now() - before, 1s);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, core::ErrorCode::unavailable);
  release = true;
}

TEST(SlowLane, AJobPastTheWaitLetsTheCallerGo) {
  std::atomic<bool> release{false};  // outlives the lane, whose threads read it
  SlowLane lane(1, 1);
  auto slow = lane.run<int>(
      [&release] {
        while (!release) std::this_thread::sleep_for(1ms);
        return core::Result<int>(1);
      },
      50ms);
  ASSERT_FALSE(slow);
  EXPECT_EQ(slow.error().details.at("reason"), "deadline");
  release = true;
}

}  // namespace
}  // namespace agentry::workspace
