// `agentry doctor` (docs/operations.md) over the real binary: a healthy setup passes;
// a broken definition, an agent on a backend that is not loaded, a store directory that
// cannot be made, a missing dashboard, auth without a token and a missing agent CLI
// each fail with a fix line; warnings alone do not fail; the --json shape.

#include "cli_fixture.hpp"

#include "support/test_store.hpp"

#include <set>

namespace agentry::integration {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

class DoctorCommandTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    web_ = dir_.path() / "web";
    dir_.write_file("web/index.html", "<!doctype html><title>agentry</title>");
  }

  /// `doctor --json` with a dashboard directory of its own and `extra`.
  CliResult doctor(test::EnvOverrides extra = {}) {
    test::EnvOverrides env{{"AGENTRY_WEB_DIR", web_.string()}};
    for (auto& kv : extra) env.push_back(std::move(kv));
    return cli({"doctor", "--json"}, env);
  }

  static json::object check(const CliResult& r, const std::string& name) {
    const json::value result = json::parse(r.out);  // alive through the loop
    for (const auto& c : result.at("checks").as_array())
      if (c.at("name").as_string() == name) return c.as_object();
    ADD_FAILURE() << "no check named '" << name << "' in " << r.out;
    return {};
  }

  static std::string status(const CliResult& r, const std::string& name) {
    auto c = check(r, name);
    return c.empty() ? "" : std::string(c.at("status").as_string());
  }

  static std::string fix(const CliResult& r, const std::string& name) {
    auto c = check(r, name);
    return c.empty() || c.at("fix").is_null() ? "" : std::string(c.at("fix").as_string());
  }

  fs::path web_;
};

TEST_P(DoctorCommandTest, AHealthySetupPasses) {
  auto r = doctor();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto result = json::parse(r.out).as_object();
  EXPECT_EQ(result.at("ok"), true);
  EXPECT_EQ(result.at("summary").at("fail"), 0) << r.out;
  EXPECT_EQ(status(r, "store"), "ok");
  EXPECT_EQ(status(r, "store: migrations"), "ok");
  if (!test::testing_on_postgresql()) {
    EXPECT_EQ(status(r, "store: writable"), "ok");
    EXPECT_EQ(status(r, "store: integrity"), "ok");
  }
  EXPECT_EQ(status(r, "definitions"), "ok");
  EXPECT_EQ(status(r, "backend mock"), "ok");
  EXPECT_EQ(status(r, "backend subprocess"), "ok");
  EXPECT_EQ(status(r, "libgit2"), "ok");
  EXPECT_EQ(status(r, "dashboard"), "ok");
  EXPECT_EQ(status(r, "auth"), "ok");
  EXPECT_NE(status(r, "disk: store"), "fail") << "low space warns, never fails";

  // The human form: one line per check, the summary last.
  auto human = cli({"doctor"}, {{"AGENTRY_WEB_DIR", web_.string()}});
  EXPECT_EQ(human.code, 0) << human.out;
  EXPECT_NE(human.out.find("ok    store "), std::string::npos) << human.out;
  EXPECT_NE(human.out.find(" 0 failed, "), std::string::npos) << human.out;
}

TEST_P(DoctorCommandTest, EveryCheckHasANameAStatusADetailAndAFixUnlessOk) {
  auto r = doctor();
  const auto result = json::parse(r.out).as_object();
  const auto& checks = result.at("checks").as_array();
  ASSERT_GE(checks.size(), 8u) << r.out;
  std::int64_t ok = 0, warn = 0, fail = 0;
  for (const auto& c : checks) {
    ASSERT_TRUE(c.at("name").is_string()) << c;
    ASSERT_TRUE(c.at("detail").is_string()) << c;
    const std::string s(c.at("status").as_string());
    ASSERT_TRUE(s == "ok" || s == "warn" || s == "fail") << c;
    (s == "ok" ? ok : s == "warn" ? warn : fail)++;
    if (s == "ok")
      EXPECT_TRUE(c.at("fix").is_null()) << c;
    else
      EXPECT_FALSE(c.at("fix").as_string().empty()) << c;
  }
  EXPECT_EQ(result.at("summary"), (json::object{{"ok", ok}, {"warn", warn}, {"fail", fail}}));
  EXPECT_EQ(result.at("ok"), fail == 0);
}

TEST_P(DoctorCommandTest, ABrokenDefinitionAndAnAgentOnAMissingBackendFail) {
  dir_.write_file("config/agents/broken/agent.md", "---\nschemaVersion: 1\nbackend: [unclosed\n---\nbody\n");
  dir_.write_file("config/agents/orphan/agent.md", "---\nschemaVersion: 1\nbackend: nosuch\n---\nbody\n");
  auto r = doctor();
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(json::parse(r.out).at("ok"), false);
  EXPECT_EQ(status(r, "definitions: agents/broken/agent.md"), "fail");
  EXPECT_NE(fix(r, "definitions: agents/broken/agent.md").find("edit " + (config_ / "agents/broken/agent.md").string()),
            std::string::npos)
      << r.out;
  EXPECT_EQ(status(r, "agent orphan"), "fail");
  EXPECT_NE(check(r, "agent orphan").at("detail").as_string().find("nosuch"), std::string::npos) << r.out;
  EXPECT_NE(fix(r, "agent orphan").find("backend:"), std::string::npos) << r.out;
  // The human form prints the fix under the failure.
  auto human = cli({"doctor"}, {{"AGENTRY_WEB_DIR", web_.string()}});
  EXPECT_EQ(human.code, 1);
  EXPECT_NE(human.out.find("fail  definitions: agents/broken/agent.md"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("      fix: edit "), std::string::npos) << human.out;
}

TEST_P(DoctorCommandTest, AStoreDirectoryThatCannotBeMadeFails) {
  if (test::testing_on_postgresql()) GTEST_SKIP() << "the store is a PostgreSQL database: no directory to write";
  // A regular file where a directory would have to be: unwritable even for root.
  dir_.write_file("not-a-dir", "x");
  auto r = doctor({{"AGENTRY_HOME", (dir_.path() / "not-a-dir" / "home").string()}});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(status(r, "store: writable"), "fail");
  EXPECT_NE(check(r, "store: writable").at("detail").as_string().find("is not a directory"), std::string::npos)
      << r.out;
  EXPECT_NE(fix(r, "store: writable").find("AGENTRY_HOME"), std::string::npos) << r.out;
}

TEST_P(DoctorCommandTest, AStoreThatCannotBeReachedFails) {
  // Nothing listens on port 1: the connection is refused at once.
  auto r = doctor({{"AGENTRY_STORE", "postgresql://agentry@127.0.0.1:1/agentry"}});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(status(r, "store"), "fail");
  EXPECT_NE(fix(r, "store").find("AGENTRY_STORE"), std::string::npos) << r.out;
}

TEST_P(DoctorCommandTest, AMissingDashboardFails) {
  auto r = doctor({{"AGENTRY_WEB_DIR", (dir_.path() / "nowhere").string()}});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(status(r, "dashboard"), "fail");
  EXPECT_NE(fix(r, "dashboard").find("npm run build"), std::string::npos) << r.out;
}

TEST_P(DoctorCommandTest, AuthWithoutATokenFailsAndAnOpenListenerWithoutAuthWarns) {
  auto no_token = doctor({{"AGENTRY_DAEMON_AUTH_ENABLED", "true"}});
  EXPECT_EQ(no_token.code, 1) << no_token.out;
  EXPECT_EQ(status(no_token, "auth"), "fail");
  EXPECT_NE(fix(no_token, "auth").find("AGENTRY_DAEMON_TOKEN"), std::string::npos);

  auto open = doctor({{"AGENTRY_LISTEN", "ws://0.0.0.0:4773/"}});
  EXPECT_EQ(open.code, 0) << "a warning alone does not fail: " << open.out;
  EXPECT_EQ(status(open, "auth"), "warn");
  EXPECT_NE(fix(open, "auth").find("AGENTRY_DAEMON_AUTH_ENABLED"), std::string::npos);
}

TEST_P(DoctorCommandTest, AnAgentCliIsFoundWithItsVersionOrFailsWhenAnAgentNeedsIt) {
  write_agent("coder", "codex", "{}");
  const auto bin = dir_.make_dir("bin");
  // Missing while an agent uses codex: a failure naming the variable that points at it.
  auto missing = doctor({{"PATH", bin.string()}, {"AGENTRY_CODEX_BIN", ""}});
  EXPECT_EQ(missing.code, 1) << missing.out;
  EXPECT_EQ(status(missing, "backend codex: agent CLI"), "fail");
  EXPECT_NE(fix(missing, "backend codex: agent CLI").find("AGENTRY_CODEX_BIN"), std::string::npos) << missing.out;
  // No agent uses claude: its absence only warns.
  EXPECT_EQ(status(missing, "backend claude: agent CLI"), "warn");

  dir_.write_file("bin/codex", "#!/bin/sh\n[ \"$1\" = --version ] && echo 'codex-cli 9.8.7' && exit 0\nexit 2\n");
  fs::permissions(bin / "codex", fs::perms::owner_all);
  auto found = doctor({{"PATH", bin.string()}, {"AGENTRY_CODEX_BIN", ""}});
  EXPECT_EQ(status(found, "backend codex: agent CLI"), "ok") << found.out;
  EXPECT_NE(check(found, "backend codex: agent CLI").at("detail").as_string().find("codex-cli 9.8.7"),
            std::string::npos)
      << found.out;
}

INSTANTIATE_TEST_SUITE_P(Local, DoctorCommandTest, ::testing::Values(CliMode::embedded), mode_name);

}  // namespace
}  // namespace agentry::integration
