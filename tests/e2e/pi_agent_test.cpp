// The pi backend with the REAL pi (@mariozechner/pi-coding-agent, RPC mode): `agentry serve`
// loads the pi plugin and runs the pinned pi against the loopback mock model's OpenAI chat
// completions API, driven only through the daemon's HTTP API. Skipped loudly when pi is not
// installed (scripts/install-agents.sh).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "agent_run_test.hpp"
#include "support/agent_binaries.hpp"

namespace agentry::integration {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

class PiAgent : public AgentRunTest {
 protected:
  void SetUp() override {
    binary_ = test::agent_binary("AGENTRY_PI_BIN");
    if (!binary_) {
      std::cerr << test::not_installed_banner_for_key("pi", "AGENTRY_PI_BIN");
      GTEST_SKIP() << test::not_installed_banner_for_key("pi", "AGENTRY_PI_BIN");
    }
    AgentRunTest::SetUp();
    // pi's providers come from models.json in its agent dir: one, the mock, on the chat API.
    dir_.write_file("agent-home/.pi/agent/models.json",
                    json::serialize(json::object{
                        {"providers",
                         {{"mock",
                           {{"baseUrl", mock_->openai_base_url()},
                            {"api", "openai-completions"},
                            {"apiKey", "dummy"},
                            {"compat", {{"supportsDeveloperRole", false}, {"supportsReasoningEffort", false}}},
                            {"models", json::array{{{"id", "mock-model"},
                                                    {"name", "Mock"},
                                                    {"reasoning", false},
                                                    {"input", json::array{"text"}},
                                                    {"contextWindow", 128000},
                                                    {"maxTokens", 4096}}}}}}}}}));
  }

  void define(const std::string& name) {
    const json::object config{{"binary", binary_->string()},
                              {"provider", "mock"},
                              {"env", {{"HOME", home_.string()}}},
                              {"interruptGraceMs", 3000}};
    write_agent(name, "pi", json::serialize(config), "model: mock-model\n");
  }

  std::optional<fs::path> binary_;
};

TEST_F(PiAgent, ATextTurnEndsInSuccessWithTheMessage) {
  define("talker");
  const std::string run = start_agent_run("talker", "SAY: Hello through pi.");
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  EXPECT_NE(said(run).find("Hello through pi."), std::string::npos) << describe(run);
  EXPECT_FALSE(mock_->request_bodies("/chat/completions").empty());
  EXPECT_FALSE(events_of(run, "usage").empty()) << describe(run);
}

TEST_F(PiAgent, ACommandRunsInTheRunsCwd) {
  define("writer");
  const std::string run = start_agent_run("writer", "SHELL: echo hi > out.txt\nSAY: done");
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  EXPECT_TRUE(fs::exists(work_ / "out.txt")) << describe(run);
  const auto started = events_of(run, "tool.started");
  ASSERT_EQ(started.size(), 1u) << describe(run);
  EXPECT_EQ(started[0].at("payload").at("tool"), "command");
  EXPECT_EQ(events_of(run, "tool.completed").at(0).at("payload").at("status"), "completed");
}

TEST_F(PiAgent, AbortMidTurnStopsIt) {
  define("staller");
  const std::string run = start_agent_run("staller", "SAY: x\nSTALL: 60");
  for (auto deadline = std::chrono::steady_clock::now() + 60s;
       mock_->request_bodies("/chat/completions").empty() && std::chrono::steady_clock::now() < deadline;)
    std::this_thread::sleep_for(100ms);
  std::this_thread::sleep_for(500ms);
  const auto asked = std::chrono::steady_clock::now();
  const test::HttpResponse aborted = client().post_json("/api/runs/" + run + "/abort", json::object{{"reason", "enough"}});
  ASSERT_EQ(aborted.status, 200) << aborted.body;
  ASSERT_EQ(wait_settled(run), "aborted") << describe(run);
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 15s);
}

TEST_F(PiAgent, AnAgentThatRunsTheBareAgentryCommandReportsItsTasks) {
  define("tasker");
  const std::string run = run_two_tasks_with_the_bare_command("tasker");
  ASSERT_FALSE(run.empty());
  expect_tasks_done_in_one_attempt(run);
}

TEST_F(PiAgent, AResumeSwitchesBackToTheSessionFile) {
  define("resumer");
  const std::string run = start_agent_run("resumer", "SAY: first");
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  const std::string session(get_run(run).at("backendSessionId").as_string());
  EXPECT_TRUE(fs::exists(session)) << "the resume token is pi's session file: " << session;
  const test::HttpResponse resumed = client().post_json("/api/runs/" + run + "/resume", json::object{{"message", "SAY: second"}});
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  for (int i = 0; i < 100 && get_run(run).at("totalSessionCount").as_int64() < 2; ++i) std::this_thread::sleep_for(50ms);
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  EXPECT_NE(said(run).find("second"), std::string::npos) << describe(run);
  EXPECT_EQ(get_run(run).at("backendSessionId").as_string(), session) << describe(run);
  // The model saw the first turn again: the session goes on.
  const auto requests = mock_->request_bodies("/chat/completions");
  ASSERT_FALSE(requests.empty());
  EXPECT_NE(json::serialize(requests.back()).find("SAY: first"), std::string::npos);
}

TEST_F(PiAgent, AQuestionIsAnsweredByAForkThatLeavesTheRunsSessionAlone) {
  define("talker");
  const std::string run = start_agent_run("talker", "SAY: First reply from the mock.");
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  const fs::path session(std::string(get_run(run).at("backendSessionId").as_string()));
  const auto session_size = fs::file_size(session);
  const std::size_t events_before = timeline(run).size();
  const auto saved_sessions = [&] {
    std::size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(home_ / ".pi")) n += e.path().extension() == ".jsonl";
    return n;
  };
  const std::size_t saved_before = saved_sessions();

  const test::HttpResponse asked = client().post_json(
      "/api/runs/" + run + "/ask", json::object{{"question", "SAY: The first reply went out."}, {"timeoutSec", 90}});
  ASSERT_EQ(asked.status, 200) << asked.body << "\n" << describe(run);
  EXPECT_EQ(asked.json().at("answer"), "The first reply went out.") << asked.body;
  EXPECT_EQ(asked.json().at("backend"), "pi");
  const auto requests = mock_->request_bodies("/chat/completions");
  ASSERT_FALSE(requests.empty());
  const std::string last = json::serialize(requests.back());
  EXPECT_NE(last.find("First reply from the mock."), std::string::npos) << "the fork lacks the session's turn: " << last;
  EXPECT_NE(last.find("The question:"), std::string::npos) << last;
  const json::value* tools = requests.back().if_contains("tools");
  ASSERT_TRUE(tools != nullptr && tools->is_array()) << last;
  for (const json::value& tool : tools->as_array()) {
    const std::string name(tool.at("function").at("name").as_string());
    EXPECT_TRUE(name == "read" || name == "grep" || name == "find" || name == "ls") << "a question got the tool " << name;
  }

  EXPECT_EQ(timeline(run).size(), events_before) << describe(run);
  EXPECT_EQ(fs::file_size(session), session_size) << "the run's session file was written";
  EXPECT_EQ(saved_sessions(), saved_before) << "the fork was left as a session of its own";
}

}  // namespace
}  // namespace agentry::integration
