#include "cli_fixture.hpp"

#include "support/test_store.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

namespace agentry::integration {
namespace json = boost::json;
namespace fs = std::filesystem;

std::string mode_name(const ::testing::TestParamInfo<CliMode>& info) {
  return info.param == CliMode::embedded ? "Embedded" : "Connected";
}

void CliTest::SetUp() {
  home_ = dir_.path() / "home";
  config_ = dir_.path() / "config";
  work_ = dir_.make_dir("work");
  dir_.make_dir("home");
  dir_.write_file("config/agents/worker/agent.md", "---\nschemaVersion: 1\nbackend: passive\n---\nYou are the worker.\n");
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
---
Work carefully.
)");
  write_agent("talker", "mock", "{steps: [{say: 'hello world', deltas: 3}, {tool: {command: ls, output: a.txt}}]}");
  write_agent("failer", "mock", "{steps: [{fail: 'tests are red'}]}");
  write_agent("hanger", "mock", "{steps: [{notice: waiting}, {hang: true}]}");
  if (connected()) {
    start_daemon();
  } else {
    // Create the database before tests start CLIs side by side: two processes migrating
    // a brand-new database at once can collide (see the store's migrate()).
    auto r = cli({"list", "--global"});
    ASSERT_EQ(r.code, 0) << r.err;
  }
}

void CliTest::TearDown() {
  if (daemon_ && daemon_->running()) daemon_->stop();
}

void CliTest::start_daemon(test::EnvOverrides env) {
  if (daemon_ && daemon_->running()) daemon_->stop();
  test::DaemonOptions options;
  options.home = home_;
  options.config_dir = config_;
  options.env = {{"AGENTRY_INTERRUPT_GRACE_MS", "2000"}, {"AGENTRY_CONNECT", ""}, {"AGENTRY_RUN_ID", ""},
                 {"AGENTRY_PARENT_RUN_ID", ""}, {"AGENTRY_RUN_GROUP_ID", ""}, {"AGENTRY_CALL_DEPTH", ""}};
  for (auto& kv : env) options.env.push_back(std::move(kv));
  daemon_ = std::make_unique<test::DaemonProcess>(options);
  daemon_->start();
  ws_url_ = "ws://127.0.0.1:" + std::to_string(daemon_->ws_port()) + "/";
}

test::EnvOverrides CliTest::cli_env(const test::EnvOverrides& extra) const {
  test::EnvOverrides env{{"AGENTRY_HOME", home_.string()},
                         {"AGENTRY_CONFIG_DIR", config_.string()},
                         {"AGENTRY_CONNECT", connected() ? ws_url_ : ""},
                         {"AGENTRY_DAEMON_TOKEN", ""},
                         {"AGENTRY_RUN_ID", ""},
                         {"AGENTRY_PARENT_RUN_ID", ""},
                         {"AGENTRY_RUN_GROUP_ID", ""},
                         {"AGENTRY_CALL_DEPTH", ""},
                         {"AGENTRY_INTERRUPT_GRACE_MS", "2000"}};
  for (const auto& kv : test::store_env(home_)) env.push_back(kv);
  for (const auto& kv : extra) env.push_back(kv);
  return env;
}

CliProcess CliTest::cli_start(const std::vector<std::string>& args, const test::EnvOverrides& extra,
                              const std::optional<std::string>& input) {
  CliProcess p;
  const int n = ++calls_;
  p.out = dir_.path() / ("cli-" + std::to_string(n) + ".out");
  p.err = dir_.path() / ("cli-" + std::to_string(n) + ".err");
  int out = ::open(p.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err = ::open(p.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int in = -1;
  if (input) {
    auto in_path = dir_.write_file("cli-" + std::to_string(n) + ".in", *input);
    in = ::open(in_path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  test::SpawnOptions options;
  options.stdin_fd = in;
  options.argv.push_back(program_.empty() ? test::DaemonProcess::binary_path().string() : program_.string());
  for (const auto& a : args) options.argv.push_back(a);
  options.env = test::environment_with(cli_env(extra));
  options.cwd = work_;
  options.stdout_fd = out;
  options.stderr_fd = err;
  options.die_with_parent = true;
  p.pid = test::spawn_process(options);
  ::close(out);
  ::close(err);
  if (in >= 0) ::close(in);
  return p;
}

CliResult CliTest::cli_wait(CliProcess& p, std::chrono::milliseconds timeout) {
  CliResult r;
  auto code = test::wait_for_exit(p.pid, timeout);
  if (!code) {
    ::kill(p.pid, SIGKILL);
    code = test::wait_for_exit(p.pid, std::chrono::seconds(10));
    ADD_FAILURE() << "agentry (pid " << p.pid << ") still running after " << timeout.count() << " ms; killed";
  }
  r.code = code.value_or(-1);
  r.out = test::read_file(p.out);
  r.err = test::read_file(p.err);
  return r;
}

CliResult CliTest::cli(const std::vector<std::string>& args, const test::EnvOverrides& extra,
                       std::chrono::milliseconds timeout) {
  auto p = cli_start(args, extra);
  return cli_wait(p, timeout);
}

CliResult CliTest::cli_with_input(const std::vector<std::string>& args, const std::string& input) {
  auto p = cli_start(args, {}, input);
  return cli_wait(p);
}

json::object CliTest::api_run(const std::string& run_id) {
  if (!connected()) return show(run_id);
  auto response = daemon_->client().get("/api/runs/" + run_id);
  EXPECT_EQ(response.status, 200) << response.body;
  if (response.status != 200) return {};
  return response.json().at("run").as_object();
}

json::object CliTest::show(const std::string& run_id) {
  auto r = cli({"show", run_id, "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code != 0) return {};
  return json::parse(r.out).at("run").as_object();
}

json::object CliTest::wait_for_run(const std::string& run_id, const std::function<bool(const json::object&)>& pred) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  json::object run;
  while (std::chrono::steady_clock::now() < deadline) {
    run = show(run_id);
    if (run.empty() || pred(run)) return run;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "run " << run_id << " never reached the expected state: " << json::serialize(run);
  return run;
}

std::vector<std::string> CliTest::audit_types(const std::string& run_id) {
  std::vector<std::string> types;
  auto r = cli({"audit", run_id, "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code != 0) return types;
  const auto history = json::parse(r.out);
  for (const auto& e : history.at("events").as_array()) types.emplace_back(e.at("type").as_string());
  return types;
}

json::array CliTest::all_runs() {
  auto r = cli({"list", "--global", "--all", "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code != 0) return {};
  return json::parse(r.out).at("runs").as_array();
}

void CliTest::write_agent(const std::string& name, const std::string& backend, const std::string& config,
                          const std::string& extra_front_matter) {
  dir_.write_file("config/agents/" + name + "/agent.md", "---\nschemaVersion: 1\nbackend: " + backend +
                                                             "\nbackendConfig:\n  " + backend + ": " + config + "\n" +
                                                             extra_front_matter + "---\nTest agent " + name + ".\n");
}

std::string CliTest::exec_agentry(const std::vector<std::string>& args) {
  std::string out = "{exec: [" + json::serialize(json::value(test::DaemonProcess::binary_path().string()));
  for (const auto& a : args) out += ", " + json::serialize(json::value(a));
  return out + "]}";
}

}  // namespace agentry::integration
