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

  std::unique_ptr<test::MockModel> mock_;
  std::filesystem::path home_;
};

}  // namespace agentry::integration
