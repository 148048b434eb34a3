#include "engine/schedules/scheduler.hpp"

#include "fake_timers.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentry::engine::testing {
namespace {

struct Fired {
  std::string run_id;
  std::int64_t due;
  std::int64_t at;
};

class SchedulerTest : public ::testing::Test {
 protected:
  std::shared_ptr<FakeTimers> timers_ = std::make_shared<FakeTimers>(1000);
  std::vector<Fired> fired_;
  Scheduler scheduler_{timers_, [this](const std::string& id, std::int64_t due) {
                         fired_.push_back({id, due, timers_->now_ms()});
                       }};
  void SetUp() override { scheduler_.start(); }
};

TEST_F(SchedulerTest, FiresEachRunOnceInDueOrderWithOneTimer) {
  scheduler_.arm("c", 5000);
  scheduler_.arm("a", 2000);
  scheduler_.arm("b", 3000);
  EXPECT_EQ(scheduler_.armed_count(), 3u);
  EXPECT_EQ(timers_->pending_wakeups(), 1u);  // one timer, for the earliest
  EXPECT_EQ(*scheduler_.earliest(), 2000);
  timers_->advance_to(1999);
  EXPECT_TRUE(fired_.empty());
  timers_->advance_to(3500);
  ASSERT_EQ(fired_.size(), 2u);
  EXPECT_EQ(fired_[0].run_id, "a");
  EXPECT_EQ(fired_[1].run_id, "b");
  EXPECT_EQ(timers_->pending_wakeups(), 1u);
  timers_->advance_to(10000);
  ASSERT_EQ(fired_.size(), 3u);
  EXPECT_EQ(fired_[2].run_id, "c");
  EXPECT_EQ(fired_[2].due, 5000);
  EXPECT_EQ(scheduler_.armed_count(), 0u);
  EXPECT_EQ(timers_->pending_wakeups(), 0u);
}

TEST_F(SchedulerTest, RearmingMovesTheRunAndDisarmingForgetsIt) {
  scheduler_.arm("a", 2000);
  scheduler_.arm("a", 4000);  // replaces
  scheduler_.arm("b", 3000);
  scheduler_.disarm("b");
  scheduler_.disarm("nobody");
  EXPECT_EQ(scheduler_.armed_count(), 1u);
  EXPECT_EQ(timers_->pending_wakeups(), 1u);
  timers_->advance_to(3999);
  EXPECT_TRUE(fired_.empty());
  timers_->advance_to(4000);
  ASSERT_EQ(fired_.size(), 1u);
  EXPECT_EQ(fired_[0].due, 4000);
}

TEST_F(SchedulerTest, AnEarlierEntryReplacesTheTimerAndLaterOnesDoNot) {
  scheduler_.arm("late", 9000);
  const auto before = timers_->armed_total();
  scheduler_.arm("later", 9500);
  EXPECT_EQ(timers_->armed_total(), before);  // the earliest did not change: no new timer
  scheduler_.arm("early", 2000);
  EXPECT_EQ(timers_->armed_total(), before + 1);
  EXPECT_EQ(timers_->pending_wakeups(), 1u);
}

TEST_F(SchedulerTest, ArmAllUsesOneTimerForThousands) {
  std::vector<std::pair<std::string, std::int64_t>> entries;
  for (int i = 0; i < 5000; ++i) entries.emplace_back("run-" + std::to_string(i), 2000 + (i * 7919) % 100000);
  const auto before = timers_->armed_total();
  scheduler_.arm_all(entries);
  EXPECT_EQ(timers_->armed_total(), before + 1);
  EXPECT_EQ(scheduler_.armed_count(), 5000u);
  timers_->advance_to(200000);
  ASSERT_EQ(fired_.size(), 5000u);
  for (std::size_t i = 1; i < fired_.size(); ++i) EXPECT_LE(fired_[i - 1].due, fired_[i].due);
}

TEST_F(SchedulerTest, NothingIsArmedBeforeStartOrAfterStop) {
  scheduler_.stop();
  scheduler_.arm("a", 2000);
  EXPECT_EQ(scheduler_.armed_count(), 0u);
  scheduler_.start();
  scheduler_.arm("a", 2000);
  scheduler_.stop();
  EXPECT_EQ(timers_->pending_wakeups(), 0u);
  timers_->advance_to(5000);
  EXPECT_TRUE(fired_.empty());
}

TEST_F(SchedulerTest, AnEntryAlreadyDueFiresAtTheNextWakeup) {
  scheduler_.arm("past", 500);  // before "now" (1000)
  timers_->advance_to(1000);
  ASSERT_EQ(fired_.size(), 1u);
  EXPECT_EQ(fired_[0].run_id, "past");
}

}  // namespace
}  // namespace agentry::engine::testing
