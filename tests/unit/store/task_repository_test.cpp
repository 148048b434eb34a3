#include "store/task_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using core::TaskStatus;
using testing::make_run;
using testing::make_task;
using testing::read;
using testing::write;

class TaskRepositoryTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    write(db(), [](store::Transaction& c) {
      for (const char* id : {"runA", "runB", "runC", "runD"}) c.runs().insert(make_run(id));
    });
  }

  void insert(const std::vector<core::Task>& tasks) {
    write(db(), [&](store::Transaction& c) {
      for (const auto& t : tasks) c.tasks().insert(t);
    });
  }

  std::vector<core::Task> list(const std::string& run_id) {
    return read(db(), [&](store::Transaction& c) { return c.tasks().list(run_id); });
  }

  static std::vector<std::string> ids_of(const std::vector<core::Task>& tasks) {
    std::vector<std::string> out;
    for (const auto& t : tasks) out.push_back(t.id);
    return out;
  }

  int next_position(const std::string& run_id) {
    return read(db(), [&](store::Transaction& c) { return c.tasks().next_position(run_id); });
  }

  using V = std::vector<std::string>;
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(TaskRepositoryTest);

TEST_P(TaskRepositoryTest, InsertThenGetReturnsEveryField) {
  core::Task t = make_task("runA", "design", 4, TaskStatus::in_progress);
  t.notes = "started\nhalf done";
  t.source = "definition:review";
  t.created_at = "2024-02-02T02:02:02.002Z";
  t.updated_at = "2024-02-02T03:03:03.003Z";
  insert({t});
  auto back = read(db(), [](store::Transaction& c) { return c.tasks().get("runA", "design"); });
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->run_id, "runA");
  EXPECT_EQ(back->id, "design");
  EXPECT_EQ(back->title, t.title);
  EXPECT_EQ(back->body, t.body);
  EXPECT_EQ(back->status, TaskStatus::in_progress);
  EXPECT_EQ(back->notes, t.notes);
  EXPECT_EQ(back->source, t.source);
  EXPECT_EQ(back->position, 4);
  EXPECT_EQ(back->created_at, t.created_at);
  EXPECT_EQ(back->updated_at, t.updated_at);
  EXPECT_FALSE(read(db(), [](store::Transaction& c) { return c.tasks().get("runB", "design"); }).has_value());
}

TEST_P(TaskRepositoryTest, ListIsInPositionOrderAndPerRun) {
  // Ids in another order than positions: the store may keep rows by id.
  insert({make_task("runA", "alpha", 2), make_task("runA", "zulu", 0), make_task("runB", "other", 1),
          make_task("runA", "mike", 1)});
  EXPECT_EQ(ids_of(list("runA")), (V{"zulu", "mike", "alpha"}));
  EXPECT_EQ(ids_of(list("runB")), (V{"other"}));
  EXPECT_TRUE(list("runC").empty());
}

TEST_P(TaskRepositoryTest, NextPositionFollowsTheHighestPosition) {
  EXPECT_EQ(next_position("runA"), 0);
  insert({make_task("runA", "a", 0)});
  EXPECT_EQ(next_position("runA"), 1);
  insert({make_task("runA", "b", 5)});
  EXPECT_EQ(next_position("runA"), 6);
  EXPECT_EQ(next_position("runB"), 0);
}

TEST_P(TaskRepositoryTest, UpdateChangesTheTaskAndReportsMissingOnes) {
  insert({make_task("runA", "a", 0), make_task("runA", "b", 1)});
  core::Task changed = make_task("runA", "a", 3, TaskStatus::completed);
  changed.title = "New title";
  changed.notes = "done";
  bool updated = false, missing = true;
  write(db(), [&](store::Transaction& c) {
    updated = c.tasks().update(changed);
    missing = c.tasks().update(make_task("runA", "zzz", 0));
  });
  EXPECT_TRUE(updated);
  EXPECT_FALSE(missing);
  const auto tasks = list("runA");
  EXPECT_EQ(ids_of(tasks), (V{"b", "a"}));
  EXPECT_EQ(tasks[1].title, "New title");
  EXPECT_EQ(tasks[1].status, TaskStatus::completed);
  EXPECT_EQ(tasks[1].notes, "done");
}

TEST_P(TaskRepositoryTest, RemoveAndRemoveAll) {
  insert({make_task("runA", "a", 0), make_task("runA", "b", 1), make_task("runB", "a", 0)});
  bool removed = false, removed_missing = true;
  write(db(), [&](store::Transaction& c) {
    removed = c.tasks().remove("runA", "a");
    removed_missing = c.tasks().remove("runA", "a");
  });
  EXPECT_TRUE(removed);
  EXPECT_FALSE(removed_missing);
  EXPECT_EQ(ids_of(list("runA")), (V{"b"}));
  write(db(), [](store::Transaction& c) { c.tasks().remove_all("runA"); });
  EXPECT_TRUE(list("runA").empty());
  EXPECT_EQ(ids_of(list("runB")), (V{"a"}));
}

TEST_P(TaskRepositoryTest, TaskIdsAreUniqueWithinARunOnly) {
  insert({make_task("runA", "same", 0), make_task("runB", "same", 0)});
  EXPECT_THROW(insert({make_task("runA", "same", 1)}), std::runtime_error);
  EXPECT_EQ(list("runA").size(), 1u);
}

TEST_P(TaskRepositoryTest, TalliesForSeveralRunsInOneCall) {
  // Inserted out of position order: the active task is the first in-progress one by position.
  insert({make_task("runA", "late-active", 3, TaskStatus::in_progress),
          make_task("runA", "done", 0, TaskStatus::completed),
          make_task("runA", "early-active", 1, TaskStatus::in_progress),
          make_task("runA", "stuck", 2, TaskStatus::blocked),
          make_task("runA", "todo", 4, TaskStatus::pending),
          make_task("runB", "b1", 0, TaskStatus::completed),
          make_task("runB", "b2", 1, TaskStatus::completed),
          // Ids in another order than positions, the first in progress by id last by position.
          make_task("runD", "a-later", 7, TaskStatus::in_progress),
          make_task("runD", "m-middle", 5, TaskStatus::in_progress),
          make_task("runD", "z-first", 2, TaskStatus::in_progress)});

  auto tallies = read(db(), [](store::Transaction& c) {
    return c.tasks().tallies({"runA", "runB", "runC", "runD", "no-such-run"});
  });
  ASSERT_TRUE(tallies.count("runA"));
  const auto& a = tallies.at("runA");
  EXPECT_EQ(a.total, 5);
  EXPECT_EQ(a.pending, 1);
  EXPECT_EQ(a.in_progress, 2);
  EXPECT_EQ(a.completed, 1);
  EXPECT_EQ(a.blocked, 1);
  ASSERT_TRUE(a.active.has_value());
  EXPECT_EQ(a.active->first, "early-active");
  EXPECT_EQ(a.active->second, "Title of early-active");

  ASSERT_TRUE(tallies.count("runB"));
  const auto& b = tallies.at("runB");
  EXPECT_EQ(b.total, 2);
  EXPECT_EQ(b.completed, 2);
  EXPECT_FALSE(b.active.has_value());

  ASSERT_TRUE(tallies.count("runD"));
  EXPECT_EQ(tallies.at("runD").in_progress, 3);
  ASSERT_TRUE(tallies.at("runD").active.has_value());
  EXPECT_EQ(tallies.at("runD").active->first, "z-first");

  // A run without tasks has nothing to count.
  EXPECT_EQ(tallies.count("runC") ? tallies.at("runC").total : 0, 0);
  EXPECT_EQ(tallies.count("no-such-run") ? tallies.at("no-such-run").total : 0, 0);

  // Only the runs asked for.
  auto only_b = read(db(), [](store::Transaction& c) { return c.tasks().tallies({"runB"}); });
  EXPECT_EQ(only_b.size(), 1u);
  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.tasks().tallies({}); }).empty());
}

TEST_P(TaskRepositoryTest, TalliesAcceptRunIdsThatNeedQuoting) {
  write(db(), [](store::Transaction& c) { c.runs().insert(make_run("quo\"te'run")); });
  insert({make_task("quo\"te'run", "t", 0, TaskStatus::pending)});
  auto tallies = read(db(), [](store::Transaction& c) { return c.tasks().tallies({"quo\"te'run"}); });
  ASSERT_TRUE(tallies.count("quo\"te'run"));
  EXPECT_EQ(tallies.at("quo\"te'run").pending, 1);
}

}  // namespace
}  // namespace agentry::sqlite_store
