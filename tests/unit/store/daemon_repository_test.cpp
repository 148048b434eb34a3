#include "store/daemon_repository.hpp"

#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::read;
using testing::write;

core::DaemonMember member(const std::string& id, const std::string& name) {
  core::DaemonMember m;
  m.id = id;
  m.name = name;
  m.host = "host-" + id;
  m.pid = 4242;
  m.advertise_url = "http://10.0.0.7:4773";
  m.labels = {"gpu", "region=eu"};
  m.capacity = 20;
  m.live_runs = 3;
  m.version = "0.9.0";
  m.started_at = "2026-12-02T10:00:00.000Z";
  return m;
}

class DaemonRepositoryTest : public testing::StoreTest {
 protected:
  std::vector<core::DaemonMember> list() {
    return read(db(), [](store::Transaction& t) { return t.daemons().list(); });
  }
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(DaemonRepositoryTest);

TEST_P(DaemonRepositoryTest, AMemberIsListedWithEveryFieldAndAFreshHeartbeat) {
  write(db(), [](store::Transaction& t) { t.daemons().upsert(member("d1", "alpha")); });
  auto members = list();
  ASSERT_EQ(members.size(), 1u);
  const auto& m = members[0];
  EXPECT_EQ(m.id, "d1");
  EXPECT_EQ(m.name, "alpha");
  EXPECT_EQ(m.host, "host-d1");
  EXPECT_EQ(m.pid, 4242);
  EXPECT_EQ(m.advertise_url, "http://10.0.0.7:4773");
  EXPECT_EQ(m.labels, (std::vector<std::string>{"gpu", "region=eu"}));
  EXPECT_EQ(m.capacity, 20);
  EXPECT_EQ(m.live_runs, 3);
  EXPECT_EQ(m.version, "0.9.0");
  EXPECT_EQ(m.started_at, "2026-12-02T10:00:00.000Z");
  EXPECT_GT(m.heartbeat_ms, 1'700'000'000'000);  // the database's clock, in epoch ms
  EXPECT_GE(m.heartbeat_age_ms, 0);
  EXPECT_LT(m.heartbeat_age_ms, 5000);
}

TEST_P(DaemonRepositoryTest, RenewingUpdatesTheMemberAndMovesItsHeartbeatOn) {
  write(db(), [](store::Transaction& t) { t.daemons().upsert(member("d1", "alpha")); });
  const auto first = list().at(0).heartbeat_ms;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto renewed = member("d1", "alpha");
  renewed.live_runs = 7;
  renewed.labels = {};
  write(db(), [&](store::Transaction& t) { t.daemons().upsert(renewed); });
  auto members = list();
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0].live_runs, 7);
  EXPECT_TRUE(members[0].labels.empty());
  EXPECT_GE(members[0].heartbeat_ms, first + 10);
}

TEST_P(DaemonRepositoryTest, MembersAreListedByNameThenIdAndRemovedOneByOne) {
  write(db(), [](store::Transaction& t) {
    t.daemons().upsert(member("d3", "beta"));
    t.daemons().upsert(member("d2", "alpha"));
    t.daemons().upsert(member("d1", "beta"));
  });
  auto members = list();
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members[0].id, "d2");
  EXPECT_EQ(members[1].id, "d1");
  EXPECT_EQ(members[2].id, "d3");
  bool removed = false, removed_unknown = true;
  write(db(), [&](store::Transaction& t) {
    removed = t.daemons().remove("d1");
    removed_unknown = t.daemons().remove("no-such-daemon");
  });
  EXPECT_TRUE(removed);
  EXPECT_FALSE(removed_unknown);
  EXPECT_EQ(list().size(), 2u);
}

TEST_P(DaemonRepositoryTest, OnlyMembersSilentForLongerThanTheAgeAreForgotten) {
  write(db(), [](store::Transaction& t) { t.daemons().upsert(member("quiet", "quiet")); });
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  write(db(), [](store::Transaction& t) { t.daemons().upsert(member("fresh", "fresh")); });
  int forgotten = -1;
  write(db(), [&](store::Transaction& t) { forgotten = t.daemons().remove_silent(40); });
  EXPECT_EQ(forgotten, 1);
  auto members = list();
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0].id, "fresh");
}

}  // namespace
}  // namespace agentry::sqlite_store
