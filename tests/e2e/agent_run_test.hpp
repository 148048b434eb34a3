// What the end-to-end tests of the acp and pi backends share: a daemon, the loopback mock
// model, a HOME of the agent's own (an agent process still running with it when the test
// ends fails the test), and reading a run's timeline.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "agent_processes.hpp"
#include "daemon_fixture.hpp"
#include "support/mock_model.hpp"

namespace agentry::integration {

class AgentRunTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    start_daemon();
    mock_ = std::make_unique<test::MockModel>(dir_.path() / "model-requests.jsonl");
    home_ = dir_.make_dir("agent-home");
  }
  void TearDown() override {
    DaemonTest::TearDown();
    if (!home_.empty()) expect_no_agent_left("HOME=" + home_.string());
  }

  std::string describe(const std::string& run) {
    std::string out = "run: " + boost::json::serialize(get_run(run)) + "\ntimeline:\n";
    for (const boost::json::object& e : timeline(run)) out += "  " + boost::json::serialize(e) + "\n";
    const std::string err = daemon_->stderr_text();
    return out + "daemon stderr (tail):\n" + (err.size() > 4000 ? err.substr(err.size() - 4000) : err);
  }
  std::vector<boost::json::object> events_of(const std::string& run, const std::string& kind) {
    std::vector<boost::json::object> out;
    for (boost::json::object& e : timeline(run))
      if (e.at("kind").as_string() == kind) out.push_back(std::move(e));
    return out;
  }
  std::string said(const std::string& run) {
    std::string out;
    for (const boost::json::object& e : events_of(run, "message.completed")) out += std::string(e.at("payload").at("text").as_string()) + "|";
    return out;
  }
  std::string wait_settled(const std::string& run) { return wait_until_settled(run, std::chrono::seconds(120)); }

  // The task loop as agents are told it: agent `agent` on an assignment with two tasks
  // whose message makes the mock model run `first_step` (a script line, when given), then
  // the bare `agentry task set` for each. Returns the run once settled.
  std::string run_two_tasks_with_the_bare_command(const std::string& agent, const std::string& first_step = {}) {
    dir_.write_file("config/assignments/two/assignment.md",
                    "---\nschemaVersion: 1\nmessage: \"" + (first_step.empty() ? "" : first_step + "\\n") +
                        "SHELL: agentry task set plan --status completed\\n"
                    "SHELL: agentry task set build --status completed\\nSAY: both done\"\ntasks:\n"
                    "  - id: plan\n    title: Plan the change\n  - id: build\n    title: Build it\n---\nDo the work.\n");
    const test::HttpResponse created = client().post_json(
        "/api/runs",
        boost::json::object{{"agent", agent}, {"assignment", "two"}, {"callerCwd", work_.string()}});
    EXPECT_EQ(created.status, 201) << created.body;
    if (created.status != 201) return {};
    const std::string run(created.json().at("run").at("runId").as_string());
    wait_settled(run);
    return run;
  }
  // The run succeeded in one attempt with every task completed.
  void expect_tasks_done_in_one_attempt(const std::string& run) {
    const boost::json::object detail = get_run(run);  // kept: the loop below walks into it
    EXPECT_EQ(detail.at("status"), "success") << describe(run);
    EXPECT_EQ(detail.at("totalAttemptCount").as_int64(), 1) << describe(run);
    for (const auto& task : detail.at("tasks").as_array()) EXPECT_EQ(task.at("status"), "completed") << describe(run);
  }

  std::unique_ptr<test::MockModel> mock_;
  std::filesystem::path home_;
};

}  // namespace agentry::integration
