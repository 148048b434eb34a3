// The PostgreSQL store at the daemon's edges: what `serve` says and does when the store
// it is given cannot be used, and what requests get while the database is away.
// (The whole integration suite also runs on PostgreSQL: IntegrationOnPostgres.*.)

#include "daemon_fixture.hpp"
#include "support/postgres_cluster.hpp"
#include "support/socket_io.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>
#include <string>
#include <thread>

namespace agentry::integration {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
    config_ = dir_.make_dir("config");
  }

  /// Starts serve with --store `uri` and expects it to refuse: exit 3 and its stderr.
  std::string refused(const std::string& uri) {
    test::DaemonProcess daemon({.home = dir_.path() / ("home-" + std::to_string(++homes_)),
                                .config_dir = config_,
                                .extra_args = {"--store", uri}});
    EXPECT_THROW(daemon.start(), std::exception) << uri;
    EXPECT_EQ(daemon.exit_code(), 3) << uri;
    return daemon.stderr_text();
  }

  test::TempDir dir_;
  std::filesystem::path config_;
  int homes_ = 0;
};

TEST_F(PostgresStoreTest, AStoreThatCannotBeUsedStopsServeWithExit3AndSaysWhy) {
  auto& cluster = *test::PostgresCluster::shared();
  const std::string port = std::to_string(cluster.port());

  auto not_a_store = refused("mysql://agentry@127.0.0.1/agentry");
  EXPECT_NE(not_a_store.find("AGENTRY_STORE='mysql://agentry@127.0.0.1/agentry' is not valid"), std::string::npos)
      << not_a_store;

  const std::string nobody_listens = "127.0.0.1:" + std::to_string(test::free_loopback_port());
  auto unreachable = refused("postgresql://postgres@" + nobody_listens + "/agentry");
  EXPECT_NE(unreachable.find("cannot connect to PostgreSQL at postgresql://postgres@" + nobody_listens),
            std::string::npos)
      << unreachable;

  // A login the server refuses; its password is never repeated.
  auto login = refused("postgresql://nobody:s3cret-pw@127.0.0.1:" + port + "/postgres");
  EXPECT_NE(login.find("role \"nobody\" does not exist"), std::string::npos) << login;
  EXPECT_NE(login.find("postgresql://nobody:***@127.0.0.1"), std::string::npos) << login;
  EXPECT_EQ(login.find("s3cret-pw"), std::string::npos) << login;

  auto no_database = refused("postgresql://postgres@127.0.0.1:" + port + "/no_such_database");
  EXPECT_NE(no_database.find("database \"no_such_database\" does not exist"), std::string::npos) << no_database;
}

// Requests answer 503 with a reason while the database is away, and the daemon serves
// again when it is back, with nothing it acknowledged lost.
TEST_F(PostgresStoreTest, WhileTheDatabaseIsAwayRequestsAnswer503AndTheDaemonRecoversWhenItReturns) {
  test::PostgresCluster cluster;  // its own: this test stops it
  dir_.write_file("config/agents/worker/agent.md", "---\nschemaVersion: 1\nbackend: passive\n---\nYou work.\n");
  test::DaemonProcess daemon({.home = dir_.path() / "home",
                              .config_dir = config_,
                              .extra_args = {"--store", cluster.create_database()}});
  daemon.start();
  auto client = daemon.client();
  const json::object create{
      {"agent", "worker"}, {"callerCwd", dir_.path().string()}, {"overrides", {{"message", "hello"}}}};
  auto before = client.post_json("/api/runs/init", create);
  ASSERT_EQ(before.status, 201) << before.body;
  const std::string acknowledged(before.json().at("run").at("runId").as_string());

  cluster.stop_server();
  auto listing = client.get("/api/runs?global=true");
  EXPECT_EQ(listing.status, 503) << listing.body;
  EXPECT_NE(listing.body.find("database is unavailable"), std::string::npos) << listing.body;
  auto write = client.post_json("/api/runs/init", create);
  EXPECT_EQ(write.status, 503) << write.body;

  cluster.start_server();
  int status = 0;
  for (int i = 0; i < 100 && status != 201; ++i) {
    status = client.post_json("/api/runs/init", create).status;
    if (status != 201) std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(status, 201) << "the daemon did not recover once the database was back";
  auto detail = client.get("/api/runs/" + acknowledged);
  EXPECT_EQ(detail.status, 200) << detail.body;
  EXPECT_TRUE(daemon.running());
}

}  // namespace
}  // namespace agentry::integration
