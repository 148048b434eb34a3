#include "store/hook_audit_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::open_database;
using testing::read;
using testing::TempDir;
using testing::write;

std::vector<core::HookAudit> audits(int from, int n) {
  std::vector<core::HookAudit> out;
  for (int i = from; i < from + n; ++i) {
    core::HookAudit a;
    a.hook_id = "h" + std::to_string(i);
    a.phase = core::HookPhase::after_attempt;
    a.outcome = "ok";
    a.created_at = "2024-01-01T00:00:00.000Z";
    out.push_back(std::move(a));
  }
  return out;
}

class HookAuditRepositoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = open_database(dir_.path() / "agentry.db");
    write(*db_, [](store::Transaction& c) {
      c.runs().insert(make_run("runA"));
      c.runs().insert(make_run("runB"));
    });
  }
  TempDir dir_;
  std::unique_ptr<SqliteStore> db_;
};

TEST_F(HookAuditRepositoryTest, AppendingKeepsOnlyTheRunsLatestAndLeavesOtherRunsAlone) {
  write(*db_, [](store::Transaction& c) { c.hook_audits().append("runB", audits(0, 3), 4); });
  write(*db_, [](store::Transaction& c) { c.hook_audits().append("runA", audits(0, 3), 4); });
  write(*db_, [](store::Transaction& c) { c.hook_audits().append("runA", audits(3, 3), 4); });
  EXPECT_EQ(read(*db_, [](store::Transaction& c) { return c.hook_audits().count("runA"); }), 4);
  EXPECT_EQ(read(*db_, [](store::Transaction& c) { return c.hook_audits().count("runB"); }), 3);
  auto kept = read(*db_, [](store::Transaction& c) { return c.hook_audits().latest("runA", 10); });
  ASSERT_EQ(kept.size(), 4u);
  EXPECT_EQ(kept.front().hook_id, "h2");  // the oldest two went
  EXPECT_EQ(kept.back().hook_id, "h5");
  // One batch larger than the bound keeps its own latest.
  write(*db_, [](store::Transaction& c) { c.hook_audits().append("runA", audits(10, 6), 4); });
  kept = read(*db_, [](store::Transaction& c) { return c.hook_audits().latest("runA", 10); });
  ASSERT_EQ(kept.size(), 4u);
  EXPECT_EQ(kept.front().hook_id, "h12");
  EXPECT_EQ(kept.back().hook_id, "h15");
}

TEST_F(HookAuditRepositoryTest, TheDefaultBoundIsFiveHundred) {
  EXPECT_EQ(HookAuditRepository::keep_limit, 500);
  write(*db_, [](store::Transaction& c) { c.hook_audits().append("runA", audits(0, 520)); });
  EXPECT_EQ(read(*db_, [](store::Transaction& c) { return c.hook_audits().count("runA"); }), 500);
  auto latest = read(*db_, [](store::Transaction& c) { return c.hook_audits().latest("runA", 1); });
  ASSERT_EQ(latest.size(), 1u);
  EXPECT_EQ(latest.front().hook_id, "h519");
}

}  // namespace
}  // namespace agentry::sqlite_store
