// `agentry store copy` and `agentry store migrate` as a user runs them: runs made by a
// real `agentry serve` on a SQLite home, the daemon stopped, the home copied into a
// fresh PostgreSQL database, a second copy refused, the copy's schema reported.
//
// Serving the copied runs from PostgreSQL is not checked here: pg_store's repositories
// are still being written; once they are, a daemon on the copy should list these runs.

#include "daemon_fixture.hpp"
#include "support/git_repo.hpp"
#include "support/postgres_cluster.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

namespace agentry::integration {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class StoreCopyTest : public DaemonTest {
 protected:
  void SetUp() override {
    if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
    // The source is always a SQLite home, also when the suite runs on PostgreSQL.
    daemon_env_ = {{"AGENTRY_STORE", "sqlite"}};
    DaemonTest::SetUp();
  }

  /// `agentry <args>` on this test's home, its stdout and stderr together.
  test::CommandResult agentry(const std::vector<std::string>& args) {
    std::vector<std::string> argv{test::DaemonProcess::binary_path().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_command(argv, work_,
                             {{"AGENTRY_HOME", home_.string()},
                              {"AGENTRY_CONFIG_DIR", config_.string()},
                              {"AGENTRY_STORE", "sqlite"}},
                             std::chrono::seconds(120));
  }
};

TEST_F(StoreCopyTest, AStoppedHomeCopiesIntoAnEmptyDatabaseOnceAndTheCopyIsAtTheLatestSchema) {
  for (int i = 0; i < 3; ++i) create_run("feature " + std::to_string(i));
  create_run("started", /*start=*/true);
  ASSERT_EQ(daemon_->stop(), 0);
  const std::string uri = test::PostgresCluster::shared()->create_database();

  auto copied = agentry({"store", "copy", "--to", uri});
  ASSERT_EQ(copied.exit_code, 0) << copied.output;
  EXPECT_TRUE(contains(copied.output, "copied " + (home_ / "agentry.db").string() + " into " + uri)) << copied.output;
  EXPECT_TRUE(std::regex_search(copied.output, std::regex("\nruns +4 +4\n"))) << copied.output;
  EXPECT_TRUE(std::regex_search(copied.output, std::regex("\ntasks +([1-9][0-9]*) +\\1\n"))) << copied.output;
  EXPECT_TRUE(std::regex_search(copied.output, std::regex("\naudit_events +([1-9][0-9]*) +\\1\n"))) << copied.output;
  EXPECT_TRUE(contains(copied.output, "attachment blobs are not copied: they stay in " + (home_ / "blobs").string()))
      << copied.output;

  auto again = agentry({"store", "copy", "--to", uri});
  EXPECT_EQ(again.exit_code, 3) << again.output;
  EXPECT_TRUE(contains(again.output, "already holds")) << again.output;
  EXPECT_TRUE(contains(again.output, "store copy fills only an empty database")) << again.output;

  auto migrated = agentry({"store", "migrate", "--store", uri});
  EXPECT_EQ(migrated.exit_code, 0) << migrated.output;
  // "up to date": at the newest schema, whatever its number.
  EXPECT_TRUE(std::regex_search(migrated.output, std::regex(": schema version [0-9]+ \\(up to date\\)")))
      << migrated.output;
  EXPECT_TRUE(contains(migrated.output, uri + ": schema version ")) << migrated.output;
  auto home = agentry({"store", "migrate"});
  EXPECT_EQ(home.exit_code, 0) << home.output;
  EXPECT_TRUE(contains(home.output, (home_ / "agentry.db").string() + ": schema version ")) << home.output;
  EXPECT_TRUE(std::regex_search(home.output, std::regex(": schema version [0-9]+ \\(up to date\\)"))) << home.output;
}

TEST_F(StoreCopyTest, AHomeADaemonServesIsNotCopied) {
  create_run();
  const std::string uri = test::PostgresCluster::shared()->create_database();
  auto refused = agentry({"store", "copy", "--to", uri});
  EXPECT_EQ(refused.exit_code, 3) << refused.output;
  EXPECT_TRUE(contains(refused.output, "serves " + home_.string() + ": stop it before copying")) << refused.output;
}

TEST_F(StoreCopyTest, WhatIsNotAPostgresqlUriOrAHomeIsRefused) {
  ASSERT_EQ(daemon_->stop(), 0);
  auto not_postgresql = agentry({"store", "copy", "--to", "mysql://agentry:pw@db/agentry"});
  EXPECT_EQ(not_postgresql.exit_code, 3) << not_postgresql.output;
  EXPECT_TRUE(contains(not_postgresql.output, "--to must be a PostgreSQL URI")) << not_postgresql.output;
  EXPECT_FALSE(contains(not_postgresql.output, ":pw@")) << not_postgresql.output;

  home_ = dir_.path() / "no-home";
  auto no_home = agentry({"store", "copy", "--to", test::PostgresCluster::shared()->create_database()});
  EXPECT_EQ(no_home.exit_code, 3) << no_home.output;
  EXPECT_TRUE(contains(no_home.output, "no SQLite store at " + (home_ / "agentry.db").string())) << no_home.output;
}

}  // namespace
}  // namespace agentry::integration
