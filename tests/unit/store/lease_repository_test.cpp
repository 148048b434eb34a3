#include "store/lease_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::read;
using testing::write;

class LeaseRepositoryTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    testing::StoreTest::SetUp();
    write(db(), [](store::Transaction& t) {
      for (const char* id : {"lease00001", "lease00002", "lease00003", "lease00004"}) t.runs().insert(make_run(id));
    });
  }
  std::int64_t acquire(const std::string& run, const std::string& owner, std::int64_t ttl_ms) {
    std::int64_t epoch = 0;
    write(db(), [&](store::Transaction& t) { epoch = t.leases().acquire(run, owner, ttl_ms); });
    return epoch;
  }
  std::optional<store::RunLease> get(const std::string& run) {
    return read(db(), [&](store::Transaction& t) { return t.leases().get(run); });
  }
  bool hold(const std::string& run, const std::string& owner, std::int64_t epoch) {
    bool held = false;
    write(db(), [&](store::Transaction& t) { held = t.leases().hold(run, owner, epoch); });
    return held;
  }
  std::optional<std::int64_t> take(const std::string& run, const std::string& from, std::int64_t epoch,
                                   const std::string& owner, bool only_if_expired = true) {
    std::optional<std::int64_t> taken;
    write(db(), [&](store::Transaction& t) {
      taken = t.leases().take_over(run, from, epoch, owner, 60000, only_if_expired);
    });
    return taken;
  }
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(LeaseRepositoryTest);

TEST_P(LeaseRepositoryTest, EachAcquisitionGrowsTheEpochAndTheExpiryIsTheDatabasesClockPlusTheTtl) {
  EXPECT_EQ(get("lease00001"), std::nullopt);
  EXPECT_EQ(acquire("lease00001", "daemon-a", 60000), 1);
  auto lease = get("lease00001");
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->owner, "daemon-a");
  EXPECT_TRUE(lease->held);
  EXPECT_EQ(lease->epoch, 1);
  EXPECT_FALSE(lease->expired);
  const auto now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_NEAR(static_cast<double>(lease->expires_ms), static_cast<double>(now_ms + 60000), 5000.0);
  EXPECT_EQ(acquire("lease00001", "daemon-b", 60000), 2);
  EXPECT_EQ(get("lease00001")->owner, "daemon-b");
}

TEST_P(LeaseRepositoryTest, OnlyTheHolderOrTheOneThatLetGoAtThatEpochMayStillWrite) {
  const auto epoch = acquire("lease00001", "daemon-a", 60000);
  EXPECT_TRUE(hold("lease00001", "daemon-a", epoch));
  EXPECT_FALSE(hold("lease00001", "daemon-b", epoch));
  EXPECT_FALSE(hold("lease00002", "daemon-a", 1)) << "no lease at all";
  // Its session ended: its last records still go in, nobody else's.
  write(db(), [](store::Transaction& t) { t.leases().release("lease00001"); });
  EXPECT_FALSE(get("lease00001")->held);
  EXPECT_EQ(get("lease00001")->owner, "daemon-a");
  EXPECT_EQ(get("lease00001")->epoch, epoch);
  EXPECT_TRUE(hold("lease00001", "daemon-a", epoch));
  EXPECT_FALSE(hold("lease00001", "daemon-a", epoch - 1));
  EXPECT_FALSE(hold("lease00001", "daemon-b", epoch));
}

TEST_P(LeaseRepositoryTest, AnExpiredLeaseIsTakenOnceAndItsHolderIsFencedFromThenOn) {
  const auto epoch = acquire("lease00001", "daemon-a", 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto expired = read(db(), [](store::Transaction& t) { return t.leases().expired(); });
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].run_id, "lease00001");
  EXPECT_TRUE(expired[0].expired);
  EXPECT_EQ(take("lease00001", "daemon-a", epoch + 1, "daemon-b"), std::nullopt) << "another epoch";
  EXPECT_EQ(take("lease00001", "daemon-a", epoch, "daemon-b"), epoch + 1);
  EXPECT_EQ(take("lease00001", "daemon-a", epoch, "daemon-c"), std::nullopt) << "taken once";
  EXPECT_FALSE(hold("lease00001", "daemon-a", epoch));
  EXPECT_TRUE(hold("lease00001", "daemon-b", epoch + 1));
  // The taker ends the run: the old holder still may not write.
  write(db(), [](store::Transaction& t) { t.leases().release("lease00001"); });
  EXPECT_FALSE(hold("lease00001", "daemon-a", epoch));
}

TEST_P(LeaseRepositoryTest, ALiveLeaseIsTakenOnlyFromAGoneHolderAndRenewalKeepsOnlyTheRunsNamed) {
  const auto first = acquire("lease00001", "daemon-a", 1);
  acquire("lease00002", "daemon-a", 1);
  acquire("lease00003", "daemon-b", 60000);
  acquire("lease00004", "daemon-b", 60000);
  EXPECT_EQ(take("lease00003", "daemon-b", 1, "daemon-a"), std::nullopt) << "not expired";
  EXPECT_EQ(take("lease00004", "daemon-b", 1, "daemon-a", /*only_if_expired=*/false), 2) << "daemon-b is known gone";
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::vector<store::RunLease> renewed;
  write(db(), [&](store::Transaction& t) {
    renewed = t.leases().renew("daemon-a", {"lease00001", "lease00003", "lease00004"}, 60000);
  });
  std::map<std::string, std::int64_t> epochs;
  for (const auto& lease : renewed) {
    EXPECT_FALSE(lease.expired);
    epochs[lease.run_id] = lease.epoch;
  }
  EXPECT_EQ(epochs, (std::map<std::string, std::int64_t>{{"lease00001", first}, {"lease00004", 2}}))
      << "lease00003 is daemon-b's; lease00002 is not driven any more";
  write(db(), [&](store::Transaction& t) { renewed = t.leases().renew("daemon-b", {"lease00004"}, 60000); });
  EXPECT_TRUE(renewed.empty()) << "daemon-b lost lease00004";
  auto expired = read(db(), [](store::Transaction& t) { return t.leases().expired(); });
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].run_id, "lease00002");
}

TEST_P(LeaseRepositoryTest, ALeavingOwnerExpiresItsLeasesAtOnceAndARemovedRunTakesItsLease) {
  acquire("lease00001", "daemon-a", 60000);
  acquire("lease00002", "daemon-a", 60000);
  acquire("lease00003", "daemon-b", 60000);
  int expired_now = 0;
  write(db(), [&](store::Transaction& t) { expired_now = t.leases().expire_all("daemon-a"); });
  EXPECT_EQ(expired_now, 2);
  EXPECT_EQ(read(db(), [](store::Transaction& t) { return t.leases().expired(); }).size(), 2u);
  write(db(), [](store::Transaction& t) { t.runs().remove("lease00003"); });
  EXPECT_EQ(get("lease00003"), std::nullopt);
}

TEST_P(LeaseRepositoryTest, TheSweepListsEveryRunningRunWithABackendAndItsLeaseInOneRead) {
  write(db(), [](store::Transaction& t) {
    for (const char* id : {"lease00001", "lease00002", "lease00003"}) {
      auto run = *t.runs().get(id);
      run.status = core::RunStatus::running;
      run.controller_id = id == std::string("lease00001") ? "daemon-a" : "";
      if (id == std::string("lease00002")) run.frozen.backend = std::string(core::passive_backend);
      t.runs().update(run);
    }
    t.leases().acquire("lease00001", "daemon-a", 60000);
  });
  auto driven = read(db(), [](store::Transaction& t) { return t.leases().driven_runs(); });
  ASSERT_EQ(driven.size(), 2u) << "not the passive run, nor the one that is not running";
  EXPECT_EQ(driven[0].run_id, "lease00001");
  EXPECT_EQ(driven[0].controller_id, "daemon-a");
  ASSERT_TRUE(driven[0].lease);
  EXPECT_EQ(driven[0].lease->owner, "daemon-a");
  EXPECT_TRUE(driven[0].lease->held);
  EXPECT_FALSE(driven[0].lease->expired);
  EXPECT_EQ(driven[1].run_id, "lease00003");
  EXPECT_EQ(driven[1].controller_id, "") << "detached: its agent works on without a controller";
  EXPECT_FALSE(driven[1].lease);
}

}  // namespace
}  // namespace agentry::sqlite_store
