#include "store/schedule_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::read;
using testing::write;

constexpr std::int64_t jan_2030 = 1893456000000;  // 2030-01-01T00:00:00.000Z

core::Schedule once(const std::string& run_id, std::optional<std::int64_t> next_ms = jan_2030) {
  core::Schedule s;
  s.run_id = run_id;
  s.spec.kind = core::ScheduleKind::once;
  s.spec.at_ms = jan_2030;
  s.next_ms = next_ms;
  s.updated_at = "2024-01-01T00:00:00.000Z";
  return s;
}

core::Schedule recurring(const std::string& run_id) {
  core::Schedule s;
  s.run_id = run_id;
  s.spec.kind = core::ScheduleKind::recurring;
  s.spec.cron = "30 1,3 * * *";
  s.spec.timezone = "America/New_York";
  s.spec.mode = core::ScheduleMode::clone;
  s.spec.continue_on_failure = true;
  s.next_ms = jan_2030 + 250;
  s.last_at = "2029-12-31T06:30:00.000Z";
  s.last_outcome = "skipped";
  s.last_reason = "still_running";
  s.last_run_id = "runC";
  s.updated_at = "2024-01-02T00:00:00.000Z";
  return s;
}

class ScheduleRepositoryTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    write(db(), [](store::Transaction& c) {
      for (const char* id : {"runA", "runB", "runC"}) c.runs().insert(make_run(id));
    });
  }

  void put(const std::vector<core::Schedule>& schedules) {
    write(db(), [&](store::Transaction& c) {
      for (const auto& s : schedules) c.schedules().put(s);
    });
  }

  std::optional<core::Schedule> get(const std::string& run_id) {
    return read(db(), [&](store::Transaction& c) { return c.schedules().get(run_id); });
  }

  std::vector<store::ArmedSchedule> armed() {
    auto out = read(db(), [](store::Transaction& c) { return c.schedules().armed(); });
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.run_id < b.run_id; });
    return out;
  }
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(ScheduleRepositoryTest);

TEST_P(ScheduleRepositoryTest, ARecurringScheduleReadsBackWithItsState) {
  put({recurring("runA")});
  auto back = get("runA");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->run_id, "runA");
  EXPECT_EQ(back->spec.kind, core::ScheduleKind::recurring);
  EXPECT_EQ(back->spec.cron, "30 1,3 * * *");
  EXPECT_EQ(back->spec.timezone, "America/New_York");
  EXPECT_EQ(back->spec.mode, core::ScheduleMode::clone);
  EXPECT_TRUE(back->spec.continue_on_failure);
  EXPECT_TRUE(back->enabled);
  EXPECT_EQ(back->next_ms, jan_2030 + 250);
  EXPECT_EQ(back->last_at, "2029-12-31T06:30:00.000Z");
  EXPECT_EQ(back->last_outcome, "skipped");
  EXPECT_EQ(back->last_reason, "still_running");
  EXPECT_EQ(back->last_run_id, "runC");
  EXPECT_EQ(back->updated_at, "2024-01-02T00:00:00.000Z");
  EXPECT_FALSE(get("runB").has_value());
}

TEST_P(ScheduleRepositoryTest, AOneTimeScheduleReadsBackWithItsDelay) {
  auto s = once("runA");
  s.spec.delay = "2h";
  s.enabled = false;
  put({s});
  auto back = get("runA");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->spec.kind, core::ScheduleKind::once);
  EXPECT_EQ(back->spec.at_ms, jan_2030);
  EXPECT_EQ(back->spec.delay, "2h");
  EXPECT_FALSE(back->enabled);
  EXPECT_FALSE(back->last_at.has_value());
  EXPECT_TRUE(back->last_outcome.empty());
  EXPECT_FALSE(back->last_run_id.has_value());
}

TEST_P(ScheduleRepositoryTest, PutReplacesTheRunsOnlySchedule) {
  put({recurring("runA")});
  auto spent = once("runA", std::nullopt);
  spent.last_outcome = "started";
  put({spent});
  auto back = get("runA");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->spec.kind, core::ScheduleKind::once);
  EXPECT_FALSE(back->next_ms.has_value());
  EXPECT_FALSE(back->last_at.has_value());
  EXPECT_EQ(back->last_outcome, "started");
  EXPECT_TRUE(back->last_reason.empty()) << "the replaced state is gone";
  EXPECT_FALSE(back->last_run_id.has_value());
  auto all = read(db(), [](store::Transaction& c) { return c.schedules().for_runs({"runA", "runB", "runC"}); });
  EXPECT_EQ(all.size(), 1u);
}

TEST_P(ScheduleRepositoryTest, RemoveSaysWhetherThereWasOne) {
  put({once("runA")});
  bool removed = false, again = true;
  write(db(), [&](store::Transaction& c) {
    removed = c.schedules().remove("runA");
    again = c.schedules().remove("runA");
  });
  EXPECT_TRUE(removed);
  EXPECT_FALSE(again);
  EXPECT_FALSE(get("runA").has_value());
}

TEST_P(ScheduleRepositoryTest, ForRunsAndAttachFillOnlyTheRunsThatHaveOne) {
  put({once("runA"), recurring("runC")});
  auto some = read(db(), [](store::Transaction& c) { return c.schedules().for_runs({"runA", "runB", "ghost"}); });
  ASSERT_EQ(some.size(), 1u);
  EXPECT_EQ(some.at("runA").spec.kind, core::ScheduleKind::once);
  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.schedules().for_runs({}); }).empty());

  std::vector<core::Run> runs{make_run("runA"), make_run("runB"), make_run("runC")};
  runs[1].schedule = once("stale");
  read(db(), [&](store::Transaction& c) {
    c.schedules().attach(runs);
    return true;
  });
  ASSERT_TRUE(runs[0].schedule.has_value());
  EXPECT_EQ(runs[0].schedule->run_id, "runA");
  EXPECT_EQ(runs[1].schedule->run_id, "stale") << "a run without a schedule is left as it was";
  EXPECT_EQ(runs[2].schedule->spec.kind, core::ScheduleKind::recurring);

  auto one = make_run("runB");
  one.schedule = once("stale");
  read(db(), [&](store::Transaction& c) {
    c.schedules().attach(one);
    return true;
  });
  EXPECT_FALSE(one.schedule.has_value()) << "attaching one run sets what the store has, even none";
}

TEST_P(ScheduleRepositoryTest, ArmedListsEnabledSchedulesThatHaveADueTime) {
  auto disabled = once("runB");
  disabled.enabled = false;
  put({recurring("runA"), disabled, once("runC", std::nullopt)});
  auto out = armed();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].run_id, "runA");
  EXPECT_EQ(out[0].next_ms, jan_2030 + 250);
  put({once("runC")});
  out = armed();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].run_id, "runC");
  EXPECT_EQ(out[1].next_ms, jan_2030);
}

TEST_P(ScheduleRepositoryTest, ARowWithADamagedSpecIsIgnoredNotFatal) {
  put({once("runA"), recurring("runB")});
  write(db(), [](store::Transaction& c) {
    testing::query_int(c, "UPDATE schedules SET spec_json = '{\"kind\":' WHERE run_id = 'runA' RETURNING 1");
    testing::query_int(c, "UPDATE schedules SET state_json = 'garbage' WHERE run_id = 'runB' RETURNING 1");
  });
  EXPECT_FALSE(get("runA").has_value());
  auto both = read(db(), [](store::Transaction& c) { return c.schedules().for_runs({"runA", "runB"}); });
  ASSERT_EQ(both.size(), 1u);
  EXPECT_TRUE(both.at("runB").last_outcome.empty()) << "unreadable state reads as none";
  EXPECT_EQ(both.at("runB").spec.cron, "30 1,3 * * *");
}

TEST_P(ScheduleRepositoryTest, AnOccurrenceIsClaimedOnceAndOnlyWhileItIsTheNextOne) {
  put({once("runA")});
  const std::string due = "2030-01-01T00:00:00.000Z";
  bool first = false, second = true, not_next = true;
  write(db(), [&](store::Transaction& c) {
    first = c.schedules().claim("runA", due, "2029-01-01T00:00:00.001Z");
    second = c.schedules().claim("runA", due, "2029-01-01T00:00:00.002Z");
    not_next = c.schedules().claim("runA", "2031-01-01T00:00:00.000Z", "2029-01-01T00:00:00.003Z");
  });
  EXPECT_TRUE(first);
  EXPECT_FALSE(second) << "the occurrence was claimed already";
  EXPECT_FALSE(not_next) << "that is not the schedule's next occurrence";
  auto claimed = get("runA");
  ASSERT_TRUE(claimed);
  EXPECT_EQ(claimed->last_at, due);
  EXPECT_EQ(claimed->updated_at, "2029-01-01T00:00:00.001Z");
  bool unknown = true;
  write(db(), [&](store::Transaction& c) { unknown = c.schedules().claim("runB", due, "x"); });
  EXPECT_FALSE(unknown) << "runB has no schedule";
}

TEST_P(ScheduleRepositoryTest, DeletingTheRunDeletesItsSchedule) {
  put({once("runA")});
  write(db(), [](store::Transaction& c) { c.runs().remove("runA"); });
  EXPECT_FALSE(get("runA").has_value());
  EXPECT_TRUE(armed().empty());
}

}  // namespace
}  // namespace agentry::sqlite_store
