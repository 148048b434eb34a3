#include "store/dependency_repository.hpp"

#include "store/event_repository.hpp"
#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using core::DependencyType;
using testing::make_run;
using testing::read;
using testing::write;

core::Dependency dep(DependencyType type, const std::string& target, const std::string& created_at) {
  return {type, target, created_at};
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

class DependencyRepositoryTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    write(db(), [](store::Transaction& c) {
      for (const char* id : {"runA", "runB", "runC"}) c.runs().insert(make_run(id));
    });
  }

  void insert(const std::string& run_id, const std::vector<core::Dependency>& deps) {
    write(db(), [&](store::Transaction& c) {
      for (const auto& d : deps) c.dependencies().insert(run_id, d);
    });
  }

  std::vector<std::string> described(const std::string& run_id) {
    std::vector<std::string> out;
    for (const auto& d : read(db(), [&](store::Transaction& c) { return c.dependencies().list(run_id); }))
      out.push_back(core::describe(d));
    return out;
  }

  using V = std::vector<std::string>;
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(DependencyRepositoryTest);

TEST_P(DependencyRepositoryTest, ListIsOldestFirstThenByTypeAndTarget) {
  insert("runA", {dep(DependencyType::run, "runC", "2024-01-02T00:00:00.000Z"),
                  dep(DependencyType::run, "runB", "2024-01-01T00:00:00.000Z"),
                  dep(DependencyType::group, "g1", "2024-01-02T00:00:00.000Z"),
                  dep(DependencyType::run, "Zed", "2024-01-02T00:00:00.000Z")});
  EXPECT_EQ(described("runA"), (V{"run:runB", "group:g1", "run:Zed", "run:runC"}));
  auto first = read(db(), [](store::Transaction& c) { return c.dependencies().list("runA"); }).at(0);
  EXPECT_EQ(first.type, DependencyType::run);
  EXPECT_EQ(first.target, "runB");
  EXPECT_EQ(first.created_at, "2024-01-01T00:00:00.000Z");
  EXPECT_TRUE(described("runB").empty());
}

TEST_P(DependencyRepositoryTest, RemoveOneOrAll) {
  insert("runA", {dep(DependencyType::run, "runB", "t1"), dep(DependencyType::group, "runB", "t2"),
                  dep(DependencyType::run, "runC", "t3")});
  insert("runB", {dep(DependencyType::run, "runC", "t1")});
  bool removed = false, missing = true;
  write(db(), [&](store::Transaction& c) {
    removed = c.dependencies().remove("runA", DependencyType::group, "runB");
    missing = c.dependencies().remove("runA", DependencyType::group, "runB");
  });
  EXPECT_TRUE(removed);
  EXPECT_FALSE(missing);
  EXPECT_EQ(described("runA"), (V{"run:runB", "run:runC"}));
  int cleared = 0, none = -1;
  write(db(), [&](store::Transaction& c) {
    cleared = c.dependencies().remove_all("runA");
    none = c.dependencies().remove_all("runC");
  });
  EXPECT_EQ(cleared, 2);
  EXPECT_EQ(none, 0);
  EXPECT_EQ(described("runB"), (V{"run:runC"}));
}

TEST_P(DependencyRepositoryTest, ListManyHoldsOnlyTheRunsThatHaveAny) {
  insert("runA", {dep(DependencyType::run, "runC", "t2"), dep(DependencyType::run, "runB", "t1")});
  insert("runB", {dep(DependencyType::group, "g1", "t1")});
  auto many = read(db(), [](store::Transaction& c) { return c.dependencies().list_many({"runA", "runB", "runC"}); });
  ASSERT_EQ(many.size(), 2u);
  ASSERT_EQ(many.at("runA").size(), 2u);
  EXPECT_EQ(many.at("runA")[0].target, "runB");
  EXPECT_EQ(many.at("runA")[1].target, "runC");
  EXPECT_EQ(many.at("runB")[0].type, DependencyType::group);
  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.dependencies().list_many({}); }).empty());
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.dependencies().list_many({"runB"}); }).size(), 1u);
}

TEST_P(DependencyRepositoryTest, NamingFindsWhoWaitsOnARunOrAGroup) {
  insert("runA", {dep(DependencyType::run, "runC", "t2"), dep(DependencyType::group, "g1", "t3")});
  insert("runB", {dep(DependencyType::run, "runC", "t1"), dep(DependencyType::group, "runC", "t4")});
  auto on_run = read(db(), [](store::Transaction& c) { return c.dependencies().naming("runC", ""); });
  ASSERT_EQ(on_run.size(), 2u);
  EXPECT_EQ(on_run[0].run_id, "runB");
  EXPECT_EQ(on_run[1].run_id, "runA");
  EXPECT_EQ(on_run[1].dependency.type, DependencyType::run);
  auto on_both = read(db(), [](store::Transaction& c) { return c.dependencies().naming("runC", "g1"); });
  ASSERT_EQ(on_both.size(), 3u);
  EXPECT_EQ(on_both[2].dependency.target, "g1");
  EXPECT_EQ(on_both[2].dependency.type, DependencyType::group);
  auto on_group = read(db(), [](store::Transaction& c) { return c.dependencies().naming("", "runC"); });
  ASSERT_EQ(on_group.size(), 1u) << "a group named like a run is still a group";
  EXPECT_EQ(on_group[0].run_id, "runB");
}

TEST_P(DependencyRepositoryTest, RunsWithDependencies) {
  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.dependencies().runs_with_dependencies(); }).empty());
  insert("runA", {dep(DependencyType::run, "runB", "t1"), dep(DependencyType::run, "runC", "t1")});
  insert("runC", {dep(DependencyType::group, "g1", "t1")});
  EXPECT_EQ(sorted(read(db(), [](store::Transaction& c) { return c.dependencies().runs_with_dependencies(); })),
            (V{"runA", "runC"}));
}

TEST_P(DependencyRepositoryTest, AnyIsWhetherSomeRunHasADependencyAtAll) {
  auto any = [&] { return read(db(), [](store::Transaction& c) { return c.dependencies().any(); }); };
  EXPECT_FALSE(any());
  insert("runA", {dep(DependencyType::group, "g1", "t1")});
  EXPECT_TRUE(any());
  write(db(), [](store::Transaction& c) { EXPECT_TRUE(c.dependencies().remove("runA", DependencyType::group, "g1")); });
  EXPECT_FALSE(any());
}

TEST_P(DependencyRepositoryTest, PointsAndGroupMembersArchivedOnesToo) {
  write(db(), [](store::Transaction& c) {
    auto done = make_run("done");
    done.status = core::RunStatus::success;
    done.run_group_id = "g1";
    auto archived = make_run("archived");
    archived.archived = true;
    archived.archived_at = "2024-01-02T00:00:00.000Z";
    archived.run_group_id = "g1";
    c.runs().insert(done);
    c.runs().insert(archived);
  });
  auto point = read(db(), [](store::Transaction& c) { return c.dependencies().point("done"); });
  ASSERT_TRUE(point.has_value());
  EXPECT_EQ(point->id, "done");
  EXPECT_EQ(point->status, core::RunStatus::success);
  EXPECT_FALSE(point->archived);
  EXPECT_EQ(point->group_id, "g1");
  EXPECT_FALSE(read(db(), [](store::Transaction& c) { return c.dependencies().point("ghost"); }).has_value());
  auto members = read(db(), [](store::Transaction& c) { return c.dependencies().group_members("g1"); });
  std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].id, "archived");
  EXPECT_TRUE(members[0].archived);
  EXPECT_EQ(members[0].status, core::RunStatus::initialized);
  EXPECT_EQ(members[1].id, "done");
  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.dependencies().group_members("g2"); }).empty());
}

TEST_P(DependencyRepositoryTest, AStatusFromANewerAgentryIsNeverSuccess) {
  write(db(), [](store::Transaction& c) {
    testing::query_int(c, "UPDATE runs SET status = 'hibernating' WHERE id = 'runA' RETURNING 1");
  });
  auto point = read(db(), [](store::Transaction& c) { return c.dependencies().point("runA"); });
  ASSERT_TRUE(point.has_value());
  EXPECT_EQ(point->status, core::RunStatus::error);
}

TEST_P(DependencyRepositoryTest, GroupsLeftAreThePreviousGroupsOnceAnyRunWaitsOnAGroup) {
  write(db(), [](store::Transaction& c) {
    for (const char* previous : {"g0", "g1", "g0"}) {
      core::AuditEvent e;
      e.run_id = "runA";
      e.type = "run.group_set";
      e.actor = "api";
      e.at = "2024-01-01T00:00:00.000Z";
      e.data = {{"runGroupId", "next"}, {"previous", previous}};
      c.audit().append(e);
    }
    core::AuditEvent other;
    other.run_id = "runA";
    other.type = "run.renamed";
    other.actor = "api";
    other.at = "2024-01-01T00:00:00.000Z";
    other.data = {{"previous", "not a group"}};
    c.audit().append(other);
  });
  auto left = [&](const std::string& run_id) {
    return sorted(read(db(), [&](store::Transaction& c) { return c.dependencies().groups_left(run_id); }));
  };
  EXPECT_TRUE(left("runA").empty()) << "nobody waits on a group: nothing to look up";
  insert("runB", {dep(DependencyType::run, "runA", "t1")});
  EXPECT_TRUE(left("runA").empty());
  insert("runB", {dep(DependencyType::group, "g0", "t1")});
  EXPECT_EQ(left("runA"), (V{"g0", "g1"}));
  EXPECT_TRUE(left("runC").empty());
}

TEST_P(DependencyRepositoryTest, DeletingARunDeletesTheDependenciesItHolds) {
  insert("runA", {dep(DependencyType::run, "runB", "t1")});
  insert("runB", {dep(DependencyType::run, "runA", "t1")});
  write(db(), [](store::Transaction& c) { c.runs().remove("runA"); });
  EXPECT_TRUE(described("runA").empty());
  EXPECT_EQ(described("runB"), (V{"run:runA"})) << "a dependency on a deleted run stays, unsatisfied";
}

}  // namespace
}  // namespace agentry::sqlite_store
