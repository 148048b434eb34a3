// Runs without an agent file (agent-runner's ad-hoc agents, issue 28 F10) and the start
// overrides that choose the backend or lift its restrictions: a request that names no
// agent but a backend runs the agent `ad-hoc` made from it; overriding an agent's backend
// or making it unrestricted needs the agent's consent (unlockedFields). Over agentry's
// own API; the compat listener's mapping is in compat_api_test.cpp, the agent-runner
// command's in agent_runner_cli_test.cpp.
#include "daemon_fixture.hpp"

namespace agentry::integration {
namespace {
namespace json = boost::json;

class AdHocRunsTest : public DaemonTest {
 protected:
  test::HttpResponse post(const std::string& route, json::object body) {
    body["callerCwd"] = work_.string();
    return client().post_json(route, body);
  }
  static bool says(const test::HttpResponse& r, const std::string& part) {
    return r.body.find(part) != std::string::npos;
  }
};

TEST_F(AdHocRunsTest, ABackendWithoutAnAgentRunsTheAdHocAgent) {
  auto started = post("/api/runs", json::object{{"overrides", json::object{{"backend", "mock"},
                                                                           {"model", "m-1"},
                                                                           {"effort", "low"},
                                                                           {"message", "echo this back"}}}});
  ASSERT_EQ(started.status, 201) << started.body;
  const std::string id(started.json().at("run").at("runId").as_string());
  ASSERT_EQ(wait_until_settled(id), "success");
  auto run = get_run(id);
  EXPECT_EQ(run.at("agent"), "ad-hoc");
  EXPECT_EQ(run.at("backend"), "mock");
  EXPECT_EQ(run.at("model"), "m-1");
  const auto& frozen = run.at("frozen").as_object();
  EXPECT_EQ(frozen.at("agentSourcePath"), "") << "no agent file";
  EXPECT_EQ(frozen.at("effort"), "low");
  EXPECT_EQ(frozen.at("timeoutSec"), 3600) << "agent-runner's default";
  EXPECT_EQ(frozen.at("unrestricted"), true) << "agent-runner's default";
  EXPECT_EQ(run.at("brief"), "echo this back") << "no role instructions";

  // The request may restrict it, and the run takes that.
  auto restricted = post("/api/runs/init", json::object{{"overrides", json::object{{"backend", "passive"},
                                                                                   {"unrestricted", false},
                                                                                   {"message", "wait"}}}});
  ASSERT_EQ(restricted.status, 201) << restricted.body;
  EXPECT_EQ(restricted.json().at("run").at("frozen").at("unrestricted"), false);
}

TEST_F(AdHocRunsTest, NeitherAgentNorBackendIsRefusedNamingTheAgent) {
  auto refused = post("/api/runs", json::object{{"overrides", json::object{{"message", "hello"}}}});
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_TRUE(says(refused, "field 'agent' is required")) << refused.body;
  EXPECT_TRUE(says(refused, "overrides.backend")) << refused.body;

  auto unknown = post("/api/runs", json::object{{"overrides", json::object{{"backend", "nope"}, {"message", "hi"}}}});
  EXPECT_EQ(unknown.status, 422) << unknown.body;
  EXPECT_TRUE(says(unknown, "\"field\":\"overrides.backend\"")) << unknown.body;
  EXPECT_TRUE(says(unknown, "'nope'")) << unknown.body;
  auto empty = post("/api/runs", json::object{{"overrides", json::object{{"backend", ""}, {"message", "hi"}}}});
  EXPECT_EQ(empty.status, 400) << empty.body;
  // The ad-hoc agent chooses nothing else a program could come from.
  auto config = post("/api/runs/init", json::object{{"overrides", json::object{{"backend", "mock"},
                                                                              {"message", "hi"},
                                                                              {"backendConfig", json::object{}}}}});
  EXPECT_EQ(config.status, 422) << config.body;
}

TEST_F(AdHocRunsTest, BackendAndUnrestrictedOverridesNeedTheAgentsConsent) {
  write_agent("closed", "mock", "{steps: [{say: hi}]}", "unrestricted: false\n");
  auto backend = post("/api/runs/init", json::object{{"agent", "closed"},
                                                     {"overrides", json::object{{"backend", "subprocess"}, {"message", "m"}}}});
  EXPECT_EQ(backend.status, 422) << backend.body;
  EXPECT_TRUE(says(backend, "unlockedFields: [backend]")) << backend.body;
  auto loosened = post("/api/runs/init", json::object{{"agent", "closed"},
                                                      {"overrides", json::object{{"unrestricted", true}, {"message", "m"}}}});
  EXPECT_EQ(loosened.status, 422) << loosened.body;
  EXPECT_TRUE(says(loosened, "unlockedFields: [unrestricted]")) << loosened.body;
  // What the agent has anyway, more confinement, or passive (which runs no program)
  // needs no consent.
  auto same = post("/api/runs/init", json::object{{"agent", "closed"},
                                                  {"overrides", json::object{{"backend", "mock"}, {"unrestricted", false},
                                                                             {"message", "m"}}}});
  EXPECT_EQ(same.status, 201) << same.body;
  auto passive = post("/api/runs/init", json::object{{"agent", "closed"},
                                                     {"overrides", json::object{{"backend", "passive"}, {"message", "m"}}}});
  EXPECT_EQ(passive.status, 201) << passive.body;

  write_agent("open", "mock", "{steps: [{say: hi}]}", "unrestricted: false\nunlockedFields: [backend, unrestricted]\n");
  auto changed = post("/api/runs/init", json::object{{"agent", "open"},
                                                     {"overrides", json::object{{"backend", "subprocess"},
                                                                                {"unrestricted", true},
                                                                                {"message", "m"}}}});
  ASSERT_EQ(changed.status, 201) << changed.body;
  const auto run = changed.json().at("run").as_object();
  EXPECT_EQ(run.at("backend"), "subprocess");
  EXPECT_EQ(run.at("frozen").at("unrestricted"), true);
  EXPECT_EQ(run.at("agent"), "open");
  // lockedFields wins over the consent: a field locked by the definitions stays.
  write_agent("locked", "mock", "{steps: [{say: hi}]}", "unlockedFields: [backend]\nlockedFields: [backend]\n");
  auto locked = post("/api/runs/init", json::object{{"agent", "locked"},
                                                    {"overrides", json::object{{"backend", "subprocess"}, {"message", "m"}}}});
  EXPECT_EQ(locked.status, 422) << locked.body;
  EXPECT_TRUE(says(locked, "locked by the agent or assignment")) << locked.body;
}

TEST_F(AdHocRunsTest, ReinitializingAnAdHocRunKeepsWhatDefinedItsAgent) {
  auto created = post("/api/runs/init", json::object{{"overrides", json::object{{"backend", "passive"},
                                                                                {"model", "m-2"},
                                                                                {"message", "first"}}}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id(created.json().at("run").at("runId").as_string());
  auto again = client().post_json("/api/runs/init", json::object{{"runId", id},
                                                                  {"overrides", json::object{{"message", "second"}}}});
  ASSERT_EQ(again.status, 200) << again.body;
  auto run = get_run(id);
  EXPECT_EQ(run.at("agent"), "ad-hoc");
  EXPECT_EQ(run.at("backend"), "passive");
  EXPECT_EQ(run.at("model"), "m-2");
  EXPECT_EQ(run.at("message"), "second");
  auto other = client().post_json("/api/runs/init", json::object{{"runId", id},
                                                                  {"overrides", json::object{{"backend", "mock"},
                                                                                             {"message", "third"}}}});
  ASSERT_EQ(other.status, 200) << other.body;
  EXPECT_EQ(get_run(id).at("backend"), "mock");
}

}  // namespace
}  // namespace agentry::integration
