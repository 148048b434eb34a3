#include "store/usage_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::read;
using testing::write;

core::ModelUsage tokens(std::optional<std::string> model, std::int64_t input, std::int64_t cached, std::int64_t output,
                        std::int64_t reasoning = 0) {
  return {std::move(model), {input, cached, output, reasoning}};
}

class UsageRepositoryTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    testing::StoreTest::SetUp();
    write(db(), [](store::Transaction& t) {
      t.runs().insert(make_run("usage0001"));
      auto other = make_run("usage0002");
      other.frozen.agent_name = "reviewer";
      t.runs().insert(other);
    });
  }
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(UsageRepositoryTest);

TEST_P(UsageRepositoryTest, IncrementsAddUpPerRunAndModelBesideTheRunRow) {
  write(db(), [](store::Transaction& t) {
    t.usage().add({"usage0001", 0, 1, "2026-03-01", tokens("model-a", 100, 10, 5, 2)});
    t.usage().add({"usage0001", 0, 1, "2026-03-01", tokens("model-a", 50, 0, 5)});
    t.usage().add({"usage0001", 1, 2, "2026-03-02", tokens(std::nullopt, 7, 0, 1)});
  });
  auto run = read(db(), [](store::Transaction& t) { return t.runs().get("usage0001"); });
  ASSERT_TRUE(run);
  ASSERT_EQ(run->usage.size(), 2u);
  EXPECT_EQ(run->usage[0].model, "model-a");
  EXPECT_EQ(run->usage[0].tokens.input, 150);
  EXPECT_EQ(run->usage[0].tokens.cached_input, 10);
  EXPECT_EQ(run->usage[0].tokens.output, 10);
  EXPECT_EQ(run->usage[0].tokens.reasoning, 2);
  EXPECT_EQ(run->usage[1].model, std::nullopt) << "an unknown model stays unknown";
  EXPECT_EQ(run->usage[1].tokens.input, 7);
  // The other run has none.
  auto other = read(db(), [](store::Transaction& t) { return t.runs().get("usage0002"); });
  ASSERT_TRUE(other);
  EXPECT_TRUE(other->usage.empty());
}

TEST_P(UsageRepositoryTest, SummariesGroupByAgentDayGroupAndRunWithinDays) {
  write(db(), [](store::Transaction& t) {
    t.usage().add({"usage0001", 0, 1, "2026-03-01", tokens("model-a", 100, 0, 10)});
    t.usage().add({"usage0001", 0, 2, "2026-03-02", tokens("model-a", 1, 0, 1)});
    t.usage().add({"usage0002", 0, 1, "2026-03-02", tokens("model-b", 20, 3, 2)});
  });
  auto by_agent = read(db(), [](store::Transaction& t) { return t.usage().summarize({store::UsageGrouping::agent, std::nullopt, std::nullopt}); });
  ASSERT_EQ(by_agent.size(), 2u);
  EXPECT_EQ(by_agent[0].key, "coder");
  EXPECT_EQ(by_agent[0].usage.model, "model-a");
  EXPECT_EQ(by_agent[0].usage.tokens.input, 101);
  EXPECT_EQ(by_agent[0].usage.tokens.output, 11);
  EXPECT_EQ(by_agent[0].runs, 1);
  EXPECT_EQ(by_agent[1].key, "reviewer");
  EXPECT_EQ(by_agent[1].usage.tokens.cached_input, 3);

  auto by_day = read(db(), [](store::Transaction& t) { return t.usage().summarize({store::UsageGrouping::day, std::nullopt, std::nullopt}); });
  ASSERT_EQ(by_day.size(), 3u);
  EXPECT_EQ(by_day[0].key, "2026-03-01");
  EXPECT_EQ(by_day[1].key, "2026-03-02");
  EXPECT_EQ(by_day[1].usage.model, "model-a");
  EXPECT_EQ(by_day[2].usage.model, "model-b");

  auto by_group = read(db(), [](store::Transaction& t) { return t.usage().summarize({store::UsageGrouping::group, std::nullopt, std::nullopt}); });
  ASSERT_EQ(by_group.size(), 2u);
  EXPECT_EQ(by_group[0].key, "group-usage0001");

  auto since = read(db(), [](store::Transaction& t) {
    return t.usage().summarize({store::UsageGrouping::run, std::string("2026-03-02"), std::nullopt});
  });
  ASSERT_EQ(since.size(), 2u);
  EXPECT_EQ(since[0].key, "usage0001");
  EXPECT_EQ(since[0].usage.tokens.input, 1) << "the first day is left out";
  auto until = read(db(), [](store::Transaction& t) {
    return t.usage().summarize({store::UsageGrouping::run, std::nullopt, std::string("2026-03-01")});
  });
  ASSERT_EQ(until.size(), 1u);
  EXPECT_EQ(until[0].usage.tokens.input, 100);
}

TEST_P(UsageRepositoryTest, SessionsAreKeyedByRunAndIndexAndOrderedByIndexAsANumber) {
  write(db(), [](store::Transaction& t) {
    t.usage().add({"usage0001", 10, 12, "2026-03-01", tokens("model-a", 5, 0, 1)});
    t.usage().add({"usage0001", 2, 3, "2026-03-01", tokens("model-a", 7, 0, 1)});
    t.usage().add({"usage0001", 2, 4, "2026-03-02", tokens("model-a", 1, 0, 1)});
  });
  auto rows = read(db(), [](store::Transaction& t) {
    return t.usage().summarize({store::UsageGrouping::session, std::nullopt, std::nullopt});
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].key, "usage0001/2");
  EXPECT_EQ(rows[0].usage.tokens.input, 8) << "both attempts and both days of session 2";
  EXPECT_EQ(rows[1].key, "usage0001/10") << "10 sorts after 2";
  EXPECT_EQ(rows[1].runs, 1);
}

TEST_P(UsageRepositoryTest, DeletingTheRunDeletesItsUsage) {
  write(db(), [](store::Transaction& t) {
    t.usage().add({"usage0001", 0, 1, "2026-03-01", tokens("model-a", 100, 0, 10)});
  });
  write(db(), [](store::Transaction& t) { t.runs().remove("usage0001"); });
  auto rows = read(db(), [](store::Transaction& t) { return t.usage().summarize({store::UsageGrouping::run, std::nullopt, std::nullopt}); });
  EXPECT_TRUE(rows.empty());
}

}  // namespace
}  // namespace agentry::sqlite_store
