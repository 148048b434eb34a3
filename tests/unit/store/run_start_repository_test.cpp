#include "store/run_start_repository.hpp"

#include "store/lease_repository.hpp"
#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::read;
using testing::write;

class RunStartRepositoryTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    testing::StoreTest::SetUp();
    write(db(), [](store::Transaction& t) {
      for (const char* id : {"start0001", "start0002", "start0003"}) t.runs().insert(make_run(id));
    });
  }
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(RunStartRepositoryTest);

TEST_P(RunStartRepositoryTest, AWaitingStartIsKeptWholeListedOldestFirstAndRemovedOnce) {
  write(db(), [](store::Transaction& t) {
    t.run_starts().put({"start0002", std::nullopt, "dependencies", "daemon", true, "2026-01-02T00:00:00.000Z"});
    t.run_starts().put({"start0001", "go on\nplease", "resume", "api", false, "2026-01-01T00:00:00.000Z"});
  });
  auto oldest = read(db(), [](store::Transaction& t) { return t.run_starts().oldest(10); });
  ASSERT_EQ(oldest.size(), 2u);
  EXPECT_EQ(oldest[0].run_id, "start0001");
  EXPECT_EQ(oldest[0].message, "go on\nplease");
  EXPECT_EQ(oldest[0].trigger, "resume");
  EXPECT_EQ(oldest[0].actor, "api");
  EXPECT_FALSE(oldest[0].automatic);
  EXPECT_EQ(oldest[1].message, std::nullopt);
  EXPECT_TRUE(oldest[1].automatic);
  // A new start of the same run replaces the one it had.
  write(db(), [](store::Transaction& t) {
    t.run_starts().put({"start0002", "again", "start", "cli", false, "2026-01-03T00:00:00.000Z"});
  });
  auto replaced = read(db(), [](store::Transaction& t) { return t.run_starts().get("start0002"); });
  ASSERT_TRUE(replaced);
  EXPECT_EQ(replaced->message, "again");
  bool first = false, second = true;
  write(db(), [&](store::Transaction& t) {
    ASSERT_TRUE(t.run_starts().claim("start0001"));
    first = t.run_starts().remove("start0001");
  });
  write(db(), [&](store::Transaction& t) {
    EXPECT_FALSE(t.run_starts().claim("start0001")) << "claimed once";
    second = t.run_starts().remove("start0001");
  });
  EXPECT_TRUE(first);
  EXPECT_FALSE(second);
}

TEST_P(RunStartRepositoryTest, ARunsWaitingStartGoesWithItAndItsLeasesCountPerOwner) {
  write(db(), [](store::Transaction& t) {
    t.run_starts().put({"start0003", std::nullopt, "start", "api", false, "2026-01-01T00:00:00.000Z"});
    t.leases().acquire("start0001", "daemon-a", 60000);
    t.leases().acquire("start0002", "daemon-a", 60000);
    t.leases().release("start0002");
  });
  EXPECT_EQ(read(db(), [](store::Transaction& t) { return t.leases().held_by("daemon-a"); }), 1);
  EXPECT_EQ(read(db(), [](store::Transaction& t) { return t.leases().held_by("daemon-b"); }), 0);
  EXPECT_EQ(read(db(), [](store::Transaction& t) { return t.leases().held_counts(); }),
            (std::map<std::string, std::int64_t>{{"daemon-a", 1}}));
  write(db(), [](store::Transaction& t) { t.runs().remove("start0003"); });
  EXPECT_EQ(read(db(), [](store::Transaction& t) { return t.run_starts().get("start0003"); }), std::nullopt);
}

}  // namespace
}  // namespace agentry::sqlite_store
