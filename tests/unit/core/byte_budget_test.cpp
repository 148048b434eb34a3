#include "core/byte_budget.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace agentry::core {
namespace {

TEST(ByteBudget, RefusesWhatWouldPassTheLimitOrACeilingBelowIt) {
  ByteBudget budget(100);
  EXPECT_TRUE(budget.try_take(60));
  EXPECT_FALSE(budget.try_take(41));
  EXPECT_FALSE(budget.try_take_below(20, 75));
  EXPECT_TRUE(budget.try_take_below(15, 75));
  EXPECT_EQ(budget.used(), 75u);
  budget.take(50);  // what must never be refused goes past the limit
  EXPECT_EQ(budget.used(), 125u);
  EXPECT_FALSE(budget.try_take(1));
  budget.give_back(125);
  EXPECT_EQ(budget.used(), 0u);
}

TEST(ByteHold, GivesBackOnceWhereverItEnds) {
  auto budget = std::make_shared<ByteBudget>(1000);
  ASSERT_TRUE(budget->try_take(300));
  {
    ByteHold hold(budget, 300);
    ByteHold moved(std::move(hold));
    EXPECT_EQ(moved.bytes(), 300u);
    EXPECT_EQ(budget->used(), 300u);
    ByteHold other;
    other = std::move(moved);  // the hold travels; nothing is given back yet
    EXPECT_EQ(budget->used(), 300u);
    other.release();
    EXPECT_EQ(budget->used(), 0u);
    other.release();
  }
  EXPECT_EQ(budget->used(), 0u);
  ASSERT_TRUE(budget->try_take(10));
  {
    ByteHold outlives(budget, 10);
    budget.reset();  // whoever made the budget is gone; the hold still gives back safely
  }
}

TEST(ByteBudget, AShareCountsInItsParentAndIsRefusedWhenEitherIsFull) {
  auto whole = std::make_shared<ByteBudget>(100);
  ByteBudget share(50, whole);
  EXPECT_TRUE(share.try_take(40));
  EXPECT_EQ(whole->used(), 40u);
  EXPECT_FALSE(share.try_take(11));  // the share's own limit
  EXPECT_TRUE(whole->try_take(55));
  EXPECT_FALSE(share.try_take(6));  // room in the share, none in the whole
  EXPECT_EQ(share.used(), 40u) << "a refusal by the parent leaves the share as it was";
  share.take(20);  // what must never be refused passes both limits
  EXPECT_EQ(share.used(), 60u);
  EXPECT_EQ(whole->used(), 115u);
  share.give_back(60);
  whole->give_back(55);
  EXPECT_EQ(share.used(), 0u);
  EXPECT_EQ(whole->used(), 0u);
}

TEST(ByteHold, GrowsAndShrinksWithWhatItHolds) {
  auto budget = std::make_shared<ByteBudget>(100);
  {
    ByteHold unsent(budget, 0);
    unsent.grow(70);
    unsent.grow(50);  // already in memory: counted even past the limit
    EXPECT_EQ(budget->used(), 120u);
    unsent.shrink(30);
    EXPECT_EQ(unsent.bytes(), 90u);
    unsent.shrink(500);  // never more than it holds
    EXPECT_EQ(unsent.bytes(), 0u);
    EXPECT_EQ(budget->used(), 0u);
    unsent.grow(10);
  }
  EXPECT_EQ(budget->used(), 0u);
  ByteHold unbound;
  unbound.grow(10);  // no budget: nothing to count
  EXPECT_EQ(unbound.bytes(), 0u);
}

TEST(ByteBudget, ManyHoldersNeverPassTheLimitTogether) {
  ByteBudget budget(1000);
  std::atomic<std::size_t> peak{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        if (!budget.try_take(30)) continue;
        std::size_t seen = budget.used();
        std::size_t old = peak.load();
        while (seen > old && !peak.compare_exchange_weak(old, seen)) {
        }
        budget.give_back(30);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_LE(peak.load(), 1000u);
  EXPECT_EQ(budget.used(), 0u);
}

}  // namespace
}  // namespace agentry::core
