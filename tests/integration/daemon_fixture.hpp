#pragma once
// A real `agentry serve` on an ephemeral loopback port, with its own home and config
// directories, and helpers for the API calls most tests make.

#include "support/daemon_process.hpp"
#include "support/http_client.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <memory>
#include <string>

namespace agentry::integration {

class DaemonTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  /// Starts (or restarts) the daemon on the same home and config.
  void start_daemon(std::vector<std::pair<std::string, std::string>> env = {});
  /// Restarts the daemon on the repository's example config (config/) and a fresh home:
  /// what a newcomer gets after `make run`. False when the source tree is unknown.
  [[nodiscard]] bool start_daemon_on_example_config();
  test::HttpClient client() const { return daemon_->client(); }

  /// POST /api/runs/init (or /api/runs when `start`), asserting 201; returns the run id.
  std::string create_run(const std::string& feature = "dark mode", bool start = false);
  boost::json::object get_run(const std::string& run_id);
  std::string run_status(const std::string& run_id);
  /// Every run id over all pages of GET /api/runs?global=true&includeArchived=true.
  std::vector<std::string> all_run_ids(int page_size = 100);

  /// Writes agents/<name>/agent.md for `backend` with `backend_config` (a YAML flow map,
  /// e.g. "{steps: [{say: hi}]}") as backendConfig.<backend>.
  void write_agent(const std::string& name, const std::string& backend, const std::string& backend_config,
                   const std::string& extra_front_matter = "");
  /// A mock step that holds the agent until open_gate() (30 s at most, so that a gate
  /// left closed does not outlive the test): the file `go` in work_, removed as it passes.
  static boost::json::object gate_step();
  void open_gate() const;
  /// Writes an executable /bin/sh script at config/<relative> (a hook's program).
  void write_script(const std::string& relative, const std::string& body);
  /// Writes assignments/<name>/assignment.md with `front_matter` (YAML lines).
  void write_assignment(const std::string& name, const std::string& front_matter);
  /// POST /api/runs for `agent` with a message; returns the run id.
  std::string start_agent_run(const std::string& agent, const std::string& message = "go");
  /// POST /api/runs for `agent` on `assignment` with `message` as the run's message, in
  /// work_; expects 201 and returns the run id ("" otherwise).
  std::string start_assignment_run(const std::string& agent, const std::string& assignment,
                                   const std::string& message);
  /// The run's hook audits of `phase`, once there are at least `n` (a failure after 10 s).
  boost::json::array wait_for_hook_audits(const std::string& run_id, const std::string& phase, std::size_t n = 1);
  /// POST /api/runs for `agent` on the "feature" assignment (three tasks: plan, build,
  /// review/check), asserting 201; returns the run id.
  std::string start_feature_run(const std::string& agent, const std::string& feature = "dark mode");
  /// The run ended `success` in one attempt with every task completed.
  void expect_tasks_done_in_one_attempt(const std::string& run_id);
  /// Polls the run until its status is not running (or `timeout`); returns the status.
  std::string wait_until_settled(const std::string& run_id, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  /// Every timeline event of the run from the JSON history route, paging through it.
  std::vector<boost::json::object> timeline(const std::string& run_id);

  /// Environment every start of the daemon gets before start_daemon()'s own; a fixture
  /// sets it before DaemonTest::SetUp() to shape the first start too.
  std::vector<std::pair<std::string, std::string>> daemon_env_;
  test::TempDir dir_;
  std::filesystem::path home_;
  std::filesystem::path config_;
  std::filesystem::path work_;
  std::unique_ptr<test::DaemonProcess> daemon_;
};

/// The error code string of an error envelope, failing the test when the body is not one.
std::string error_code_of(const test::HttpResponse& response);

}  // namespace agentry::integration
