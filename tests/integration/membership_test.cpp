// Membership through the real daemons: each daemon on a store lists every member with
// its state; a member that stops leaves, and one killed is seen to go silent.

#include "daemon_fixture.hpp"
#include "support/postgres_cluster.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace agentry::integration {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

json::array members(const test::DaemonProcess& daemon) {
  auto response = daemon.client().get("/api/daemons");
  EXPECT_EQ(response.status, 200) << response.body;
  return response.json().at("daemons").as_array();
}

const json::object* member_named(const json::array& list, const std::string& name) {
  for (const auto& m : list)
    if (m.at("name") == json::value(name)) return &m.as_object();
  return nullptr;
}

/// Members alpha, beta and gamma on the PostgreSQL database `store`, each with its own
/// home under `dir`, started.
std::vector<std::unique_ptr<test::DaemonProcess>> three_members(const test::TempDir& dir,
                                                                const std::filesystem::path& config,
                                                                const std::string& store,
                                                                std::vector<std::pair<std::string, std::string>> env = {}) {
  std::vector<std::unique_ptr<test::DaemonProcess>> members;
  for (const char* name : {"alpha", "beta", "gamma"}) {
    members.push_back(std::make_unique<test::DaemonProcess>(test::DaemonOptions{
        .home = dir.path() / name, .config_dir = config, .env = env, .extra_args = {"--store", store, "--name", name}}));
    members.back()->start();
  }
  return members;
}

TEST_F(DaemonTest, TheDaemonListsItselfAsTheStoresOneAliveMember) {
  auto list = members(*daemon_);
  ASSERT_EQ(list.size(), 1u) << json::serialize(list);
  const auto& self = list[0].as_object();
  EXPECT_EQ(self.at("state"), "alive");
  EXPECT_EQ(self.at("self"), true);
  EXPECT_EQ(self.at("pid"), daemon_->pid());
  EXPECT_EQ(self.at("advertiseUrl"), json::value(daemon_->base_url()));
  EXPECT_EQ(self.at("liveRuns"), 0);
  EXPECT_TRUE(self.at("capacity").is_null());
}

TEST(Membership, DaemonsOnOnePostgresqlDatabaseSeeEachOtherComeAndGo) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  test::TempDir dir;
  const auto config = dir.make_dir("config");
  const std::string store = test::PostgresCluster::shared()->create_database();
  auto member = [&](const std::string& name, std::vector<std::pair<std::string, std::string>> env) {
    env.emplace_back("AGENTRY_LEASE_TTL_MS", "2000");
    return std::make_unique<test::DaemonProcess>(test::DaemonOptions{
        .home = dir.path() / name, .config_dir = config, .env = env,
        .extra_args = {"--store", store, "--name", name}});
  };
  auto a = member("alpha", {{"AGENTRY_LABELS", "gpu,region=eu"}, {"AGENTRY_MAX_LIVE_RUNS", "12"}});
  auto b = member("beta", {});
  auto c = member("gamma", {});
  a->start();
  b->start();
  c->start();

  auto seen_by_b = members(*b);
  ASSERT_EQ(seen_by_b.size(), 3u) << json::serialize(seen_by_b);
  const auto* alpha = member_named(seen_by_b, "alpha");
  ASSERT_NE(alpha, nullptr);
  EXPECT_EQ(alpha->at("state"), "alive");
  EXPECT_EQ(alpha->at("self"), false);
  EXPECT_EQ(alpha->at("labels"), (json::array{"gpu", "region=eu"}));
  EXPECT_EQ(alpha->at("capacity"), 12);
  EXPECT_EQ(alpha->at("advertiseUrl"), json::value(a->base_url()));
  EXPECT_EQ(member_named(seen_by_b, "beta")->at("self"), true);

  // A member that stops leaves the list; one killed stays, going suspect, then dead.
  ASSERT_EQ(c->stop(), 0);
  a->kill9();
  std::string state;
  for (int i = 0; i < 60 && state != "dead"; ++i) {
    std::this_thread::sleep_for(100ms);
    auto list = members(*b);
    EXPECT_EQ(member_named(list, "gamma"), nullptr) << json::serialize(list);
    if (const auto* killed = member_named(list, "alpha")) state = std::string(killed->at("state").as_string());
  }
  EXPECT_EQ(state, "dead") << "a member silent past its lease time (2 s) counts as dead";
  EXPECT_EQ(member_named(members(*b), "beta")->at("state"), "alive");
}

// Every member arms every schedule (each hears of it through the shared store), and each
// occurrence is claimed by exactly one of them: 100 one-time schedules made with three
// members up are recorded 100 times in all, once each.
TEST(Membership, EachScheduleOccurrenceIsHandledByExactlyOneMember) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  test::TempDir dir;
  const auto config = dir.make_dir("config");
  dir.write_file("config/agents/worker/agent.md", "---\nschemaVersion: 1\nbackend: passive\n---\nYou work.\n");
  const std::string store = test::PostgresCluster::shared()->create_database();
  auto members = three_members(dir, config, store);
  auto client = members[0]->client();
  constexpr int schedules = 100;
  std::vector<std::string> runs;
  for (int i = 0; i < schedules; ++i) {
    auto made = client.post_json("/api/runs/init", json::object{{"agent", "worker"},
                                                                {"callerCwd", dir.path().string()},
                                                                {"overrides", {{"message", "go"}}}});
    ASSERT_EQ(made.status, 201) << made.body;
    runs.emplace_back(made.json().at("run").at("runId").as_string());
    ASSERT_EQ(client.post_json("/api/runs/" + runs.back() + "/ready", json::object{}).status, 200);
  }
  // Due together, a few seconds from now: by then every member has armed them.
  for (const auto& run : runs)
    ASSERT_EQ(client.put_json("/api/runs/" + run + "/schedule", json::object{{"delay", "4s"}}).status, 200);
  auto occurrences = [&](const std::string& run) {
    int n = 0;
    auto page = members[1]->client().get("/api/runs/" + run + "/audit?limit=200").json();
    for (const auto& e : page.at("events").as_array())
      if (e.at("type") == "schedule.fired" || e.at("type") == "schedule.skipped") ++n;
    return n;
  };
  int total = 0;
  for (int attempt = 0; attempt < 100 && total < schedules; ++attempt) {
    std::this_thread::sleep_for(200ms);
    total = 0;
    for (const auto& run : runs) total += occurrences(run) > 0 ? 1 : 0;
  }
  ASSERT_EQ(total, schedules) << "not every schedule came due";
  std::this_thread::sleep_for(2s);  // time for a second member's duplicate, if any
  int recorded = 0;
  for (const auto& run : runs) {
    const int n = occurrences(run);
    EXPECT_EQ(n, 1) << run << ": " << members[1]->client().get("/api/runs/" + run + "/audit?limit=200").body;
    recorded += n;
  }
  EXPECT_EQ(recorded, schedules);
}

// Every member watches every run's dependencies; when the run they wait on ends, each
// waiting run is started once, by one member (the start is one write that only a ready
// run passes: the others find it running).
TEST(Membership, ARunWaitingOnAnotherIsStartedOnceWhenItEnds) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  test::TempDir dir;
  const auto config = dir.make_dir("config");
  dir.write_file("config/agents/talker/agent.md",
                 "---\nschemaVersion: 1\nbackend: mock\nbackendConfig:\n  mock: {steps: [{say: hi}]}\n---\nTalk.\n");
  const std::string store = test::PostgresCluster::shared()->create_database();
  auto members = three_members(dir, config, store);
  auto client = members[0]->client();
  const json::object talker{{"agent", "talker"}, {"callerCwd", dir.path().string()}, {"overrides", {{"message", "go"}}}};
  auto upstream = client.post_json("/api/runs/init", talker);
  ASSERT_EQ(upstream.status, 201) << upstream.body;
  const std::string first(upstream.json().at("run").at("runId").as_string());
  std::vector<std::string> waiting;
  for (int i = 0; i < 10; ++i) {
    auto made = client.post_json("/api/runs/init", talker);
    ASSERT_EQ(made.status, 201) << made.body;
    waiting.emplace_back(made.json().at("run").at("runId").as_string());
    auto added = client.post_json("/api/runs/" + waiting.back() + "/dependencies",
                                  json::object{{"type", "run"}, {"runId", first}});
    ASSERT_EQ(added.status, 200) << added.body;
    ASSERT_EQ(client.post_json("/api/runs/" + waiting.back() + "/ready", json::object{}).status, 200);
  }
  ASSERT_EQ(client.post_json("/api/runs/" + first + "/resume", json::object{}).status, 200);
  auto status_of = [&](const std::string& run) {
    return std::string(members[2]->client().get("/api/runs/" + run).json().at("run").at("status").as_string());
  };
  auto started = [&](const std::string& run) {
    int n = 0;
    auto page = members[1]->client().get("/api/runs/" + run + "/audit?limit=200").json();
    for (const auto& e : page.at("events").as_array()) n += e.at("type") == "run.started" ? 1 : 0;
    return n;
  };
  int settled = 0;
  for (int attempt = 0; attempt < 150 && settled < 10; ++attempt) {
    std::this_thread::sleep_for(200ms);
    settled = 0;
    for (const auto& run : waiting) settled += status_of(run) == "success" ? 1 : 0;
  }
  ASSERT_EQ(settled, 10) << "every waiting run ran to success";
  std::this_thread::sleep_for(2s);  // time for a second member's start, if any
  for (const auto& run : waiting) EXPECT_EQ(started(run), 1) << run;
}

// Every member polls the one outbox; each notification is tried by one member at a
// time, so a webhook hears of each run's end once.
TEST(Membership, EachNotificationIsDeliveredByOneMember) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  test::TestServer receiver([](test::ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
  });
  test::TempDir dir;
  const auto config = dir.make_dir("config");
  dir.write_file("config/agents/notifier/agent.md",
                 "---\nschemaVersion: 1\nbackend: mock\nbackendConfig:\n  mock: {steps: [{say: done}]}\nnotify:\n"
                 "  - webhook: http://127.0.0.1:" + std::to_string(receiver.port()) + "/hook\n---\nNotify.\n");
  const std::string store = test::PostgresCluster::shared()->create_database();
  auto members = three_members(dir, config, store, {{"AGENTRY_NOTIFY_POLL_MS", "20"}});
  constexpr std::size_t runs = 20;
  for (std::size_t i = 0; i < runs; ++i) {
    auto started = members[i % 3]->client().post_json(
        "/api/runs", json::object{{"agent", "notifier"}, {"callerCwd", dir.path().string()},
                                  {"overrides", {{"message", "go"}}}});
    ASSERT_EQ(started.status, 201) << started.body;
  }
  for (int i = 0; i < 200 && receiver.requests().size() < runs; ++i) std::this_thread::sleep_for(50ms);
  std::this_thread::sleep_for(2s);  // time for a second member's delivery, if any
  auto requests = receiver.requests();
  std::set<std::string> keys;
  for (const auto& r : requests) keys.insert(r.headers.at("idempotency-key"));
  EXPECT_EQ(keys.size(), runs);
  EXPECT_EQ(requests.size(), runs) << "a notification was delivered more than once";
}

// Every member watches children for their parents; a child's end resumes its parent
// once, whichever member notices it.
TEST(Membership, AChildsEndResumesItsParentOnce) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  test::TempDir dir;
  const auto config = dir.make_dir("config");
  // No steps: the mock says what the prompt's "@mock" lines say, and echoes the rest.
  dir.write_file("config/agents/echo/agent.md",
                 "---\nschemaVersion: 1\nbackend: mock\nbackendConfig:\n  mock: {}\n---\nEcho.\n");
  const std::string store = test::PostgresCluster::shared()->create_database();
  auto members = three_members(dir, config, store);
  auto start = [&](std::size_t member, json::object body) {
    body["agent"] = "echo";
    body["callerCwd"] = dir.path().string();
    auto made = members[member]->client().post_json("/api/runs", body);
    EXPECT_EQ(made.status, 201) << made.body;
    return made.status == 201 ? std::string(made.json().at("run").at("runId").as_string()) : std::string();
  };
  auto detail = [&](const std::string& run) {
    return members[2]->client().get("/api/runs/" + run).json().at("run").as_object();
  };
  auto settled = [&](const std::string& run, std::size_t sessions) {
    for (int i = 0; i < 150; ++i) {
      auto d = detail(run);
      if (d.at("status") != "running" && d.at("sessions").as_array().size() >= sessions) return true;
      std::this_thread::sleep_for(100ms);
    }
    return false;
  };
  constexpr std::size_t families = 6;
  std::vector<std::string> parents;
  for (std::size_t i = 0; i < families; ++i) {
    parents.push_back(start(i % 3, json::object{{"overrides", {{"message", "parent"}}}}));
    ASSERT_TRUE(settled(parents.back(), 1));
  }
  for (std::size_t i = 0; i < families; ++i)
    start((i + 1) % 3, json::object{{"parentRunId", parents[i]}, {"overrides", {{"message", "child"}}}});
  for (const auto& parent : parents) ASSERT_TRUE(settled(parent, 2)) << parent;
  std::this_thread::sleep_for(2s);  // time for a second member's resume, if any
  for (const auto& parent : parents)
    EXPECT_EQ(detail(parent).at("sessions").as_array().size(), 2u) << parent << " was resumed more than once";
}

}  // namespace
}  // namespace agentry::integration
