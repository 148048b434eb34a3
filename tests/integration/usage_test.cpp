// Usage and cost over the real daemon: the mock backend reports usage increments, the
// store sums them in the events' own commits, and RunDetail, RunSummary and GET /api/usage
// show them, priced by prices.yaml (docs/usage.md).
#include "daemon_fixture.hpp"

#include <fstream>

namespace agentry::integration {
namespace {
namespace json = boost::json;

class UsageTest : public DaemonTest {
 protected:
  void write_prices() {
    std::ofstream(config_ / "prices.yaml") << "models:\n  priced-model:\n    input: 2\n    cachedInput: 1\n"
                                              "    output: 10\n";
  }
};

TEST_F(UsageTest, IncrementsAddUpPerModelAndArePricedFromPricesYaml) {
  write_prices();
  // Two increments without a model count for the agent's configured one.
  write_agent("spender", "mock",
              "{steps: [{usage: {inputTokens: 1000, cachedInputTokens: 100, outputTokens: 50}}, {say: half},"
              " {usage: {inputTokens: 500, outputTokens: 25, reasoningTokens: 5}}, {say: done}]}",
              "model: priced-model\n");
  start_daemon();
  auto run_id = start_agent_run("spender");
  ASSERT_EQ(wait_until_settled(run_id), "success");
  auto usage = get_run(run_id).at("usage").as_object();
  EXPECT_EQ(usage.at("inputTokens").as_int64(), 1500);
  EXPECT_EQ(usage.at("cachedInputTokens").as_int64(), 100);
  EXPECT_EQ(usage.at("outputTokens").as_int64(), 75);
  EXPECT_EQ(usage.at("reasoningTokens").as_int64(), 5);
  ASSERT_EQ(usage.at("models").as_array().size(), 1u);
  EXPECT_EQ(usage.at("models").at(0).at("model"), "priced-model");
  EXPECT_DOUBLE_EQ(usage.at("costUsd").as_double(), (1500 * 2.0 + 100 * 1.0 + 75 * 10.0) / 1e6);
  EXPECT_FALSE(usage.contains("warnings"));
  // The summary in lists carries the same.
  auto list = client().get("/api/runs?global=true");
  ASSERT_EQ(list.status, 200) << list.body;
  auto summary = json::parse(list.body).at("runs").at(0).as_object();
  EXPECT_EQ(summary.at("usage").at("inputTokens").as_int64(), 1500);
}

TEST_F(UsageTest, AnUnknownModelGivesCostNullWithAWarningNeverAWrongNumber) {
  write_prices();
  write_agent("mixed", "mock",
              "{steps: [{usage: {inputTokens: 1000, outputTokens: 10, model: priced-model}},"
              " {usage: {inputTokens: 7, outputTokens: 3, model: mystery-model}}, {say: done}]}");
  start_daemon();
  auto run_id = start_agent_run("mixed");
  ASSERT_EQ(wait_until_settled(run_id), "success");
  auto usage = get_run(run_id).at("usage").as_object();
  EXPECT_TRUE(usage.at("costUsd").is_null());
  EXPECT_EQ(usage.at("inputTokens").as_int64(), 1007);
  const auto& models = usage.at("models").as_array();
  ASSERT_EQ(models.size(), 2u);
  EXPECT_DOUBLE_EQ(models[0].at("costUsd").as_double(), (1000 * 2.0 + 10 * 10.0) / 1e6);
  EXPECT_TRUE(models[1].at("costUsd").is_null());
  ASSERT_EQ(usage.at("warnings").as_array().size(), 1u);
  EXPECT_NE(std::string(usage.at("warnings").at(0).as_string()).find("mystery-model"), std::string::npos);

  auto report = client().get("/api/usage?by=agent");
  ASSERT_EQ(report.status, 200) << report.body;
  auto body = json::parse(report.body).as_object();
  EXPECT_EQ(body.at("by"), "agent");
  ASSERT_EQ(body.at("entries").as_array().size(), 1u);
  EXPECT_EQ(body.at("entries").at(0).at("key"), "mixed");
  EXPECT_TRUE(body.at("total").at("costUsd").is_null());
  ASSERT_EQ(body.at("warnings").as_array().size(), 1u);
  // The daemon log says it too.
  EXPECT_NE(daemon_->stderr_text().find("mystery-model"), std::string::npos);
}

TEST_F(UsageTest, TheReportGroupsByDayGroupAndRunAndValidatesItsParameters) {
  write_agent("spender", "mock", "{steps: [{usage: {inputTokens: 10, outputTokens: 1, model: m}}, {say: done}]}");
  start_daemon();
  auto run_id = start_agent_run("spender");
  ASSERT_EQ(wait_until_settled(run_id), "success");
  auto by_run = json::parse(client().get("/api/usage?by=run").body);
  EXPECT_EQ(by_run.at("entries").at(0).at("key"), json::value(run_id));
  auto by_day = json::parse(client().get("/api/usage?by=day&since=2000-01-01").body);
  EXPECT_EQ(by_day.at("entries").at(0).at("key").as_string().size(), 10u);
  auto future = json::parse(client().get("/api/usage?by=group&since=2999-01-01").body);
  EXPECT_TRUE(future.at("entries").as_array().empty());
  EXPECT_EQ(future.at("total").at("inputTokens").as_int64(), 0);

  auto bad_by = client().get("/api/usage?by=week");
  EXPECT_EQ(bad_by.status, 400);
  EXPECT_EQ(error_code_of(bad_by), "INVALID_REQUEST");
  EXPECT_EQ(json::parse(bad_by.body).at("error").at("details").at("field"), "by");
  auto bad_day = client().get("/api/usage?since=yesterday");
  EXPECT_EQ(bad_day.status, 400);
  EXPECT_EQ(json::parse(bad_day.body).at("error").at("details").at("field"), "since");
  auto unknown = client().get("/api/usage?bogus=1");
  EXPECT_EQ(unknown.status, 400);
}

TEST_F(UsageTest, TheReportGroupsBySessionKeyedByRunAndSessionIndex) {
  write_agent("spender", "mock", "{steps: [{usage: {inputTokens: 10, outputTokens: 1, model: m}}, {say: done}]}");
  start_daemon();
  auto run_id = start_agent_run("spender");
  ASSERT_EQ(wait_until_settled(run_id), "success");
  auto resumed = client().post_json("/api/runs/" + run_id + "/resume", json::object{{"message", "again"}});
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  ASSERT_EQ(wait_until_settled(run_id), "success");
  auto report = client().get("/api/usage?by=session");
  ASSERT_EQ(report.status, 200) << report.body;
  auto body = json::parse(report.body).as_object();
  EXPECT_EQ(body.at("by"), "session");
  const auto& entries = body.at("entries").as_array();
  ASSERT_EQ(entries.size(), 2u) << report.body;
  EXPECT_EQ(entries[0].at("key"), json::value(run_id + "/0"));
  EXPECT_EQ(entries[1].at("key"), json::value(run_id + "/1"));
  EXPECT_EQ(entries[1].at("inputTokens").as_int64(), 10) << "each session counts its own tokens";
  EXPECT_EQ(body.at("total").at("inputTokens").as_int64(), 20);
}

/// The run's outbox entries for `event` (RunDetail.notifications).
std::vector<json::object> notifications_of(const json::object& run, const std::string& event) {
  std::vector<json::object> out;
  for (const auto& n : run.at("notifications").as_array())
    if (n.at("event") == json::value(event)) out.push_back(n.as_object());
  return out;
}

constexpr const char* kUnreachableHook = "notify:\n  - webhook: http://127.0.0.1:9/hooks\n    events: [run.needs_user]\n";

TEST_F(UsageTest, CrossingTheSoftBudgetNotifiesOnceAndTheRunGoesOn) {
  write_agent("thrifty", "mock",
              "{steps: [{usage: {inputTokens: 50, outputTokens: 10}}, {usage: {inputTokens: 10}},"
              " {usage: {inputTokens: 5}}, {say: done}]}",
              std::string("budget: {tokens: 100, soft: 0.6, hard: 1}\n") + kUnreachableHook);
  start_daemon();
  auto run_id = start_agent_run("thrifty");
  ASSERT_EQ(wait_until_settled(run_id), "success");
  auto run = get_run(run_id);
  EXPECT_EQ(run.at("usage").at("inputTokens").as_int64(), 65);
  EXPECT_EQ(run.at("frozen").at("budget").at("tokens").as_int64(), 100);
  auto soft = notifications_of(run, "run.needs_user");
  ASSERT_EQ(soft.size(), 1u) << "one notification for the crossing, none for the usage after it";
  EXPECT_NE(std::string(soft[0].at("idempotencyKey").as_string()).find("budget-soft"), std::string::npos);
}

TEST_F(UsageTest, CrossingTheHardBudgetInterruptsTheAttemptAndEndsTheRunBlocked) {
  write_agent("spendthrift", "mock",
              "{steps: [{usage: {inputTokens: 60, outputTokens: 10}}, {say: 'half way'},"
              " {usage: {inputTokens: 40, cachedInputTokens: 10}}, {hang: true}]}",
              std::string("budget: {tokens: 100, soft: 0.5}\n") + kUnreachableHook);
  start_daemon();
  auto run_id = start_agent_run("spendthrift");
  ASSERT_EQ(wait_until_settled(run_id), "blocked");
  auto run = get_run(run_id);
  EXPECT_EQ(run.at("statusReason"), "budget exceeded: 120 tokens of 100 tokens");
  EXPECT_EQ(run.at("totalAttemptCount").as_int64(), 1) << "no retry past the budget";
  EXPECT_EQ(notifications_of(run, "run.needs_user").size(), 1u) << "the soft limit was crossed on the way";
}

TEST_F(UsageTest, AStartRequestsBudgetWinsAndABadOneIsRefusedNamingTheField) {
  write_agent("spender", "mock", "{steps: [{usage: {inputTokens: 500}}, {hang: true}]}",
              "budget: {tokens: 100000}\n");
  start_daemon();
  const auto start = [&](json::object budget) {
    return client().post_json("/api/runs", json::object{{"agent", "spender"},
                                                        {"callerCwd", work_.string()},
                                                        {"overrides", {{"message", "go"}}},
                                                        {"budget", std::move(budget)}});
  };
  auto bad = start({{"tokens", 10}, {"usd", 1}});
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_EQ(json::parse(bad.body).at("error").at("details").at("field"), "budget");
  auto soft = start({{"tokens", 10}, {"soft", 2}, {"hard", 1}});
  EXPECT_EQ(soft.status, 400) << soft.body;
  EXPECT_EQ(json::parse(soft.body).at("error").at("details").at("field"), "budget.soft");
  auto started = start({{"tokens", 100}});
  ASSERT_EQ(started.status, 201) << started.body;
  auto run_id = std::string(json::parse(started.body).at("run").at("runId").as_string());
  ASSERT_EQ(wait_until_settled(run_id), "blocked");
  EXPECT_EQ(get_run(run_id).at("statusReason"), "budget exceeded: 500 tokens of 100 tokens");
}

TEST_F(UsageTest, ABadBudgetInAnAgentIsAProblemNamingTheField) {
  write_agent("broken", "mock", "{steps: [{say: hi}]}", "budget: {tokens: -5}\n");
  start_daemon();
  auto response = client().get("/api/agents/broken");
  EXPECT_NE(response.body.find("budget.tokens"), std::string::npos) << response.body;
}

}  // namespace
}  // namespace agentry::integration
