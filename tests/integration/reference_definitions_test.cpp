// A daemon whose config directory is tests/fixtures/reference-definitions (definition
// files in agent-runner's format): its definition routes list and show every file with
// no warning, and runs start from it. Values the runs read from the daemon's
// environment never appear in what the API shows.
#include "daemon_fixture.hpp"
#include "support/source_tree.hpp"

#include <boost/json/serialize.hpp>

namespace agentry::integration {
namespace {
namespace fs = std::filesystem;
namespace json = boost::json;

constexpr const char* deploy_token = "dtok-0123456789abcdef";

class ReferenceDefinitionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_ = dir_.path() / "config";
    fs::copy(test::source_tree() / "tests/fixtures/reference-definitions", config_, fs::copy_options::recursive);
    work_ = dir_.make_dir("work");
    test::DaemonOptions options;
    options.home = dir_.path() / "home";
    options.config_dir = config_;
    options.env = {{"DEPLOY_TOKEN", deploy_token}, {"RUN_TESTS", "0"}, {"REVIEW_STRICT", ""}};
    daemon_ = std::make_unique<test::DaemonProcess>(options);
    daemon_->start();
  }
  void TearDown() override {
    if (daemon_ && daemon_->running()) daemon_->stop();
  }
  test::HttpClient client() const { return daemon_->client(); }

  /// POSTs a RunStartRequest to `route`, expecting 201; the RunDetail.
  json::object create(const std::string& route, json::object body) {
    body["callerCwd"] = work_.string();
    auto response = client().post_json(route, body);
    EXPECT_EQ(response.status, 201) << response.body;
    EXPECT_EQ(response.body.find(deploy_token), std::string::npos) << response.body;
    if (response.status != 201) return {};
    return response.json().at("run").as_object();
  }

  test::TempDir dir_;
  fs::path config_;
  fs::path work_;
  std::unique_ptr<test::DaemonProcess> daemon_;
};

TEST_F(ReferenceDefinitionsTest, EveryDefinitionListsAndShowsWithoutWarnings) {
  const std::pair<const char*, std::size_t> kinds[] = {
      {"agents", 5}, {"assignments", 2}, {"launchers", 2}, {"task-definitions", 3}, {"environments", 1}};
  for (const auto& [kind, count] : kinds) {
    auto list = client().get(std::string("/api/") + kind);
    ASSERT_EQ(list.status, 200) << kind << ": " << list.body;
    const auto body = list.json();
    const auto& result = body.as_object().begin()->value().as_object();  // { agents: {...} }, { taskDefinitions: {...} }
    EXPECT_TRUE(result.at("warnings").as_array().empty()) << kind << ": " << json::serialize(result.at("warnings"));
    const auto& entries = result.at("entries").as_array();
    EXPECT_EQ(entries.size(), count) << kind;
    for (const auto& entry : entries) {
      std::string name(entry.at("name").as_string());
      std::string encoded;
      for (char c : name) encoded += c == '/' ? std::string("%2F") : std::string(1, c);
      auto detail = client().get(std::string("/api/") + kind + "/" + encoded);
      ASSERT_EQ(detail.status, 200) << kind << "/" << name << ": " << detail.body;
      const auto detail_json = detail.json();
      const auto& inner = detail_json.as_object().begin()->value().as_object();
      EXPECT_TRUE(inner.at("warnings").as_array().empty()) << kind << "/" << name << ": " << detail.body;
    }
  }
  auto launcher = client().get("/api/launchers/ssh-worker").json();
  EXPECT_EQ(json::serialize(launcher.at("launcher").at("launcher").at("command")),
            R"(["ssh","worker","docker","exec","-i","agent"])");
  auto planner = client().get("/api/agents/planner").json();
  EXPECT_EQ(planner.at("agent").at("agent").at("timeoutSec").as_int64(), 3600);
  auto assignment = client().get("/api/assignments/review-changes").json();
  const auto& vars = assignment.at("assignment").at("assignment").at("vars");
  EXPECT_EQ(json::serialize(vars.at("deploy_token").at("sources")), R"(["parent","env"])");
  EXPECT_EQ(vars.at("deploy_token").at("envName").as_string(), "DEPLOY_TOKEN");
}

TEST_F(ReferenceDefinitionsTest, RunsStartFromThemAndHideEnvValues) {
  // The codex agent with agent-runner's frozen settings; its env-sourced var redacted.
  auto run = create("/api/runs/init", {{"agent", "implementer"},
                                       {"assignment", "implement-feature"},
                                       {"cliVars", {{"feature", "dark mode"}}}});
  ASSERT_FALSE(run.empty());
  const std::string run_id(run.at("runId").as_string());
  EXPECT_EQ(run.at("status").as_string(), "initialized");
  const auto& vars = run.at("vars").as_object();
  EXPECT_EQ(vars.at("feature").as_string(), "dark mode");
  EXPECT_EQ(vars.at("branch").as_string(), "main");
  // RUN_TESTS=0 came from the daemon's environment: redacted like every env value.
  EXPECT_EQ(json::serialize(vars.at("run_tests")), R"({"redacted":true,"source":"env","envName":"RUN_TESTS"})");
  EXPECT_EQ(vars.at("max_files").as_int64(), 20);
  EXPECT_EQ(json::serialize(vars.at("deploy_token")), R"({"redacted":true,"source":"env","envName":"DEPLOY_TOKEN"})");
  EXPECT_EQ(run.at("runtimeVars"), run.at("vars"));
  EXPECT_NE(run.at("brief").as_string().find("use the token [redacted]."), std::string::npos) << run.at("brief");
  bool verify_mentions_false = false;  // the env value reached the task text (5 chars: not cut out)
  for (const auto& task : run.at("tasks").as_array())
    if (task.at("id") == "checks/verify") verify_mentions_false = task.at("body").as_string().find("(false)") != std::string::npos;
  EXPECT_TRUE(verify_mentions_false) << json::serialize(run.at("tasks"));
  EXPECT_EQ(run.at("message").as_string(), "Implement dark mode on main (scope: small).");
  EXPECT_NE(run.at("callerInstructions").as_string().find("Run " + run_id + " works on main."), std::string::npos)
      << run.at("callerInstructions");
  const auto& frozen = run.at("frozen").as_object();
  EXPECT_EQ(frozen.at("timeoutSec").as_int64(), 5400);
  EXPECT_EQ(frozen.at("backendConfig").at("transport").at("type").as_string(), "ws");
  std::vector<std::string> tasks;
  for (const auto& task : run.at("tasks").as_array()) tasks.emplace_back(task.at("id").as_string());
  EXPECT_EQ(tasks, (std::vector<std::string>{"feature/orient", "plan", "implement", "checks/verify"}));
  auto shown = client().get("/api/runs/" + run_id);
  ASSERT_EQ(shown.status, 200);
  EXPECT_EQ(shown.body.find(deploy_token), std::string::npos);

  // An inline launcher is frozen as the launcher "inline"; `direct` is none.
  auto niced = create("/api/runs/init", {{"agent", "niced"}, {"overrides", {{"message", "go"}}}});
  ASSERT_FALSE(niced.empty());
  EXPECT_EQ(json::serialize(niced.at("frozen").at("launcher")),
            R"({"name":"inline","command":["nice","-n","5"],"env":{}})");
  auto plain = create("/api/runs/init", {{"agent", "plain"}, {"overrides", {{"message", "go"}}}});
  ASSERT_FALSE(plain.empty());
  EXPECT_TRUE(plain.at("frozen").at("launcher").is_null()) << json::serialize(plain.at("frozen"));

  // The claude agent: its launcher is `command: ssh` plus `args`, its timeout the default.
  auto planned = create("/api/runs/init", {{"agent", "planner"},
                                           {"assignment", "review-changes"},
                                           {"cliVars", {{"range", "v1..v2"}}}});
  ASSERT_FALSE(planned.empty());
  EXPECT_EQ(json::serialize(planned.at("frozen").at("launcher").at("command")),
            R"(["ssh","worker","docker","exec","-i","agent"])");
  EXPECT_EQ(planned.at("frozen").at("timeoutSec").as_int64(), 3600);
  EXPECT_EQ(planned.at("vars").at("strict").as_bool(), false);  // REVIEW_STRICT is empty: unset

  // A passive child started from the first run inherits its vars, the token still redacted.
  auto child = create("/api/runs", {{"agent", "triage"}, {"assignment", "review-changes"}, {"parentRunId", run_id}});
  ASSERT_FALSE(child.empty());
  EXPECT_EQ(child.at("status").as_string(), "running");
  EXPECT_EQ(child.at("parentRunId").as_string(), run_id);
  const auto& child_vars = child.at("vars").as_object();
  EXPECT_EQ(child_vars.at("branch").as_string(), "main");
  EXPECT_EQ(child_vars.at("range").as_string(), "main..HEAD");
  EXPECT_EQ(json::serialize(child_vars.at("deploy_token")),
            R"({"redacted":true,"source":"parent","envName":"DEPLOY_TOKEN","inheritedFromRunId":")" + run_id + "\"}");
  EXPECT_EQ(child.at("brief").as_string(),
            "Work the tasks of review-changes and update their status as you go.\n\n"
            "Review main..HEAD. Report problems as task notes; do not change the code.");
}

}  // namespace
}  // namespace agentry::integration
