#include "store/hook_audit_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::read;
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

class HookAuditRepositoryTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    write(db(), [](store::Transaction& c) {
      c.runs().insert(make_run("runA"));
      c.runs().insert(make_run("runB"));
    });
  }
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(HookAuditRepositoryTest);

TEST_P(HookAuditRepositoryTest, AppendingKeepsOnlyTheRunsLatestAndLeavesOtherRunsAlone) {
  write(db(), [](store::Transaction& c) { c.hook_audits().append("runB", audits(0, 3), 4); });
  write(db(), [](store::Transaction& c) { c.hook_audits().append("runA", audits(0, 3), 4); });
  write(db(), [](store::Transaction& c) { c.hook_audits().append("runA", audits(3, 3), 4); });
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.hook_audits().count("runA"); }), 4);
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.hook_audits().count("runB"); }), 3);
  auto kept = read(db(), [](store::Transaction& c) { return c.hook_audits().latest("runA", 10); });
  ASSERT_EQ(kept.size(), 4u);
  EXPECT_EQ(kept.front().hook_id, "h2");  // the oldest two went
  EXPECT_EQ(kept.back().hook_id, "h5");
  // One batch larger than the bound keeps its own latest.
  write(db(), [](store::Transaction& c) { c.hook_audits().append("runA", audits(10, 6), 4); });
  kept = read(db(), [](store::Transaction& c) { return c.hook_audits().latest("runA", 10); });
  ASSERT_EQ(kept.size(), 4u);
  EXPECT_EQ(kept.front().hook_id, "h12");
  EXPECT_EQ(kept.back().hook_id, "h15");
}

TEST_P(HookAuditRepositoryTest, TheDefaultBoundIsFiveHundred) {
  EXPECT_EQ(HookAuditRepository::keep_limit, 500);
  write(db(), [](store::Transaction& c) { c.hook_audits().append("runA", audits(0, 520)); });
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.hook_audits().count("runA"); }), 500);
  auto latest = read(db(), [](store::Transaction& c) { return c.hook_audits().latest("runA", 1); });
  ASSERT_EQ(latest.size(), 1u);
  EXPECT_EQ(latest.front().hook_id, "h519");
}

TEST_P(HookAuditRepositoryTest, EveryFieldIsKept) {
  core::HookAudit failed;
  failed.hook_id = "lint";
  failed.phase = core::HookPhase::prepare;
  failed.outcome = "failed";
  failed.message = "exit status 2";
  failed.duration_ms = 1234;
  failed.exit_code = 2;
  failed.stderr_excerpt = "line 1\nline 2";
  failed.output_truncated = true;
  failed.created_at = "2024-02-02T02:02:02.002Z";
  write(db(), [&](store::Transaction& c) { c.hook_audits().append("runA", {failed, audits(0, 1)[0]}); });
  auto back = read(db(), [](store::Transaction& c) { return c.hook_audits().latest("runA"); });
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].hook_id, "lint");
  EXPECT_EQ(back[0].phase, core::HookPhase::prepare);
  EXPECT_EQ(back[0].outcome, "failed");
  EXPECT_EQ(back[0].message, "exit status 2");
  EXPECT_EQ(back[0].duration_ms, 1234);
  EXPECT_EQ(back[0].exit_code, std::optional<int>(2));
  EXPECT_EQ(back[0].stderr_excerpt, "line 1\nline 2");
  EXPECT_TRUE(back[0].output_truncated);
  EXPECT_EQ(back[0].created_at, "2024-02-02T02:02:02.002Z");
  EXPECT_FALSE(back[1].exit_code.has_value());
  EXPECT_FALSE(back[1].output_truncated);
  // A negative limit is none, as SQLite takes it.
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.hook_audits().latest("runA", -1); }).size(), 2u);
}

TEST_P(HookAuditRepositoryTest, AWorktreeIsStoredOnItsRun) {
  EXPECT_FALSE(read(db(), [](store::Transaction& c) { return c.worktrees().get("runA"); }).has_value());
  write(db(), [](store::Transaction& c) { c.worktrees().set("runA", R"({"path":"/w/runA"})"); });
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.worktrees().get("runA"); }),
            std::optional<std::string>(R"({"path":"/w/runA"})"));
  EXPECT_FALSE(read(db(), [](store::Transaction& c) { return c.worktrees().get("runB"); }).has_value());
  EXPECT_FALSE(read(db(), [](store::Transaction& c) { return c.worktrees().get("missing"); }).has_value());
}

// Run tokens are tested here, with the run's other small side records.
TEST_P(HookAuditRepositoryTest, RunTokensNameTheirRunUntilRevoked) {
  write(db(), [](store::Transaction& c) {
    core::Run running = make_run("runC");
    running.status = core::RunStatus::running;
    c.runs().insert(running);
    for (auto [hash, run] : {std::pair{"hash-a", "runC"}, {"hash-b", "runC"}, {"hash-c", "runA"}, {"hash-d", "runB"}})
      c.run_tokens().insert(hash, run, "2024-01-01T00:00:00.000Z");
  });
  auto run_of = [&](const char* hash) {
    return read(db(), [&](store::Transaction& c) { return c.run_tokens().run_of(hash); });
  };
  auto removed = [&](auto fn) {
    int n = -1;
    write(db(), [&](store::Transaction& c) { n = fn(c.run_tokens()); });
    return n;
  };
  EXPECT_EQ(run_of("hash-a"), std::optional<std::string>("runC"));
  EXPECT_FALSE(run_of("HASH-A").has_value());
  EXPECT_THROW(write(db(), [](store::Transaction& c) { c.run_tokens().insert("hash-a", "runA", "2024"); }),
               std::runtime_error);
  // Stale: the tokens of runs that are not running.
  EXPECT_EQ(removed([](store::RunTokenRepository& t) { return t.remove_stale(); }), 2);
  EXPECT_FALSE(run_of("hash-c").has_value());
  EXPECT_EQ(run_of("hash-b"), std::optional<std::string>("runC"));
  EXPECT_EQ(removed([](store::RunTokenRepository& t) { return t.remove_for_run("runC"); }), 2);
  EXPECT_EQ(removed([](store::RunTokenRepository& t) { return t.remove_for_run("runC"); }), 0);
  EXPECT_FALSE(run_of("hash-a").has_value());
  // And they go with their run.
  write(db(), [](store::Transaction& c) { c.run_tokens().insert("hash-e", "runA", "2024"); });
  write(db(), [](store::Transaction& c) { c.runs().remove("runA"); });
  EXPECT_FALSE(run_of("hash-e").has_value());
}

}  // namespace
}  // namespace agentry::sqlite_store
