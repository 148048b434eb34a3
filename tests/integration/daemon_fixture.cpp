#include "daemon_fixture.hpp"

#include <sys/stat.h>

#include <fstream>
#include <thread>

namespace agentry::integration {
namespace json = boost::json;

void DaemonTest::SetUp() {
  home_ = dir_.path() / "home";
  config_ = dir_.path() / "config";
  work_ = dir_.make_dir("work");
  dir_.write_file("config/agents/worker/agent.md", R"(---
schemaVersion: 1
backend: passive
model: small
---
You are the worker.
)");
  dir_.write_file("config/assignments/feature/assignment.md", R"(---
schemaVersion: 1
message: "Build {{feature}}."
vars:
  feature:
    type: string
    required: true
tasks:
  - id: plan
    title: Plan {{feature}}
  - id: build
    title: Build it
  - review/check
---
Work carefully.
)");
  dir_.write_file("config/tasks/review/check.md", R"(---
schemaVersion: 1
title: Review the change
---
Read the diff.
)");
  dir_.write_file("config/agents/broken/agent.md", "---\nschemaVersion: 2\nbackend: passive\n---\n");
  start_daemon();
}

void DaemonTest::TearDown() {
  if (daemon_ && daemon_->running()) daemon_->stop();
}

void DaemonTest::start_daemon(std::vector<std::pair<std::string, std::string>> env) {
  if (daemon_ && daemon_->running()) daemon_->stop();
  test::DaemonOptions options;
  options.home = home_;
  options.config_dir = config_;
  options.env = daemon_env_;
  options.env.insert(options.env.end(), env.begin(), env.end());
  daemon_ = std::make_unique<test::DaemonProcess>(options);
  daemon_->start();
}

bool DaemonTest::start_daemon_on_example_config() {
  // The source tree, as the daemon's build recorded it (no absolute path in a -D flag).
  std::ifstream cache(test::DaemonProcess::binary_path().parent_path().parent_path() / "CMakeCache.txt");
  std::string line, source;
  while (std::getline(cache, line))
    if (line.rfind("CMAKE_HOME_DIRECTORY:INTERNAL=", 0) == 0) source = line.substr(line.find('=') + 1);
  if (source.empty()) return false;
  if (daemon_ && daemon_->running()) daemon_->stop();
  test::DaemonOptions options;
  options.home = dir_.path() / "example-home";
  options.config_dir = std::filesystem::path(source) / "config";
  daemon_ = std::make_unique<test::DaemonProcess>(options);
  daemon_->start();
  return true;
}

std::string DaemonTest::create_run(const std::string& feature, bool start) {
  json::object body{{"agent", "worker"},
                    {"assignment", "feature"},
                    {"callerCwd", work_.string()},
                    {"cliVars", {{"feature", feature}}}};
  auto response = client().post_json(start ? "/api/runs" : "/api/runs/init", body);
  EXPECT_EQ(response.status, 201) << response.body;
  if (response.status != 201) return {};
  return std::string(response.json().at("run").at("runId").as_string());
}

json::object DaemonTest::get_run(const std::string& run_id) {
  auto response = client().get("/api/runs/" + run_id);
  EXPECT_EQ(response.status, 200) << response.body;
  return response.json().at("run").as_object();
}

std::string DaemonTest::run_status(const std::string& run_id) {
  return std::string(get_run(run_id).at("status").as_string());
}

std::vector<std::string> DaemonTest::all_run_ids(int page_size) {
  std::vector<std::string> ids;
  std::string cursor;
  for (int guard = 0; guard < 10000; ++guard) {
    std::string target = "/api/runs?global=true&includeArchived=true&limit=" + std::to_string(page_size);
    if (!cursor.empty()) target += "&cursor=" + cursor;
    auto page = client().get(target);
    EXPECT_EQ(page.status, 200) << page.body;
    auto body = page.json().as_object();
    for (const auto& run : body.at("runs").as_array()) ids.emplace_back(run.at("runId").as_string());
    if (body.at("nextCursor").is_null()) break;
    cursor = std::string(body.at("nextCursor").as_string());
    // The cursor is "<created_at>|<id>"; keep it a valid query value.
    std::string encoded;
    for (char c : cursor) encoded += (c == '|') ? std::string("%7C") : (c == ':') ? std::string("%3A") : std::string(1, c);
    cursor = encoded;
  }
  return ids;
}

void DaemonTest::write_agent(const std::string& name, const std::string& backend, const std::string& backend_config,
                             const std::string& extra_front_matter) {
  dir_.write_file("config/agents/" + name + "/agent.md",
                  "---\nschemaVersion: 1\nbackend: " + backend + "\nbackendConfig:\n  " + backend + ": " +
                      backend_config + "\n" + extra_front_matter + "---\nTest agent " + name + ".\n");
}

boost::json::object DaemonTest::gate_step() {
  return {{"exec", boost::json::array{"sh", "-c",
                                      "i=0; while [ ! -f go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; "
                                      "rm -f go"}}};
}

void DaemonTest::open_gate() const { std::ofstream(work_ / "go") << "go"; }

void DaemonTest::write_script(const std::string& relative, const std::string& body) {
  auto path = dir_.write_file("config/" + relative, "#!/bin/sh\n" + body);
  ::chmod(path.c_str(), 0755);
}

void DaemonTest::write_assignment(const std::string& name, const std::string& front_matter) {
  dir_.write_file("config/assignments/" + name + "/assignment.md",
                  "---\nschemaVersion: 1\n" + front_matter + "---\nDo it.\n");
}

std::string DaemonTest::start_agent_run(const std::string& agent, const std::string& message) {
  json::object body{{"agent", agent}, {"callerCwd", work_.string()}, {"overrides", {{"message", message}}}};
  auto response = client().post_json("/api/runs", body);
  EXPECT_EQ(response.status, 201) << response.body;
  if (response.status != 201) return {};
  return std::string(response.json().at("run").at("runId").as_string());
}

std::string DaemonTest::start_feature_run(const std::string& agent, const std::string& feature) {
  auto created = client().post_json("/api/runs", json::object{{"agent", agent},
                                                              {"assignment", "feature"},
                                                              {"callerCwd", work_.string()},
                                                              {"cliVars", {{"feature", feature}}}});
  EXPECT_EQ(created.status, 201) << created.body;
  if (created.status != 201) return {};
  return std::string(created.json().at("run").at("runId").as_string());
}

void DaemonTest::expect_tasks_done_in_one_attempt(const std::string& run_id) {
  const json::object detail = get_run(run_id);  // kept: the loop below walks into it
  EXPECT_EQ(detail.at("status"), "success") << json::serialize(detail);
  EXPECT_EQ(detail.at("totalAttemptCount").as_int64(), 1) << json::serialize(detail);
  for (const auto& task : detail.at("tasks").as_array())
    EXPECT_EQ(task.at("status"), "completed") << json::serialize(task);
}

std::string DaemonTest::wait_until_settled(const std::string& run_id, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string status;
  while (std::chrono::steady_clock::now() < deadline) {
    status = run_status(run_id);
    if (status != "running") return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "run " << run_id << " still " << status << " after " << timeout.count() << " ms";
  return status;
}

std::vector<json::object> DaemonTest::timeline(const std::string& run_id) {
  std::vector<json::object> events;
  std::int64_t after = 0;
  for (;;) {
    auto page = client().get("/api/runs/" + run_id + "/timeline?limit=5000&after=" + std::to_string(after));
    EXPECT_EQ(page.status, 200) << page.body;
    if (page.status != 200) break;
    auto body = page.json().as_object();
    const auto& list = body.at("events").as_array();
    for (const auto& e : list) events.push_back(e.as_object());
    if (list.empty()) break;
    after = body.at("lastCursor").as_int64();
  }
  return events;
}

std::string error_code_of(const test::HttpResponse& response) {
  auto body = response.json();
  if (!body.is_object() || !body.as_object().contains("error")) {
    ADD_FAILURE() << "not an error envelope: " << response.body;
    return {};
  }
  const auto& error = body.at("error").as_object();
  EXPECT_TRUE(error.at("message").is_string());
  EXPECT_TRUE(error.at("details").is_object());
  return std::string(error.at("code").as_string());
}

std::string DaemonTest::start_assignment_run(const std::string& agent, const std::string& assignment,
                                             const std::string& message) {
  boost::json::object body{{"agent", agent},
                           {"assignment", assignment},
                           {"callerCwd", work_.string()},
                           {"overrides", {{"message", message}}}};
  auto response = client().post_json("/api/runs", body);
  EXPECT_EQ(response.status, 201) << response.body;
  return response.status == 201 ? std::string(response.json().at("run").at("runId").as_string()) : "";
}

boost::json::array DaemonTest::wait_for_hook_audits(const std::string& run_id, const std::string& phase,
                                                    std::size_t n) {
  boost::json::array found;
  for (int i = 0; i < 400; ++i) {
    found.clear();
    const auto detail = get_run(run_id);  // kept: the loop reads inside it
    for (const auto& a : detail.at("hookAudits").as_array())
      if (a.at("phase").as_string() == phase) found.push_back(a);
    if (found.size() >= n) return found;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ADD_FAILURE() << "run " << run_id << " has " << found.size() << " " << phase << " hook audits, expected " << n;
  return found;
}

}  // namespace agentry::integration
