#include "cluster_fixture.hpp"

#include "support/postgres_cluster.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace agentry::integration {

namespace json = boost::json;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string self_id(const test::DaemonProcess& daemon) {
  auto list = daemon.client().get("/api/daemons").json().at("daemons").as_array();
  for (const auto& m : list)
    if (m.at("self") == true) return std::string(m.at("daemonId").as_string());
  ADD_FAILURE() << "no member is the daemon itself: " << json::serialize(list);
  return {};
}

json::object run_of(const test::DaemonProcess& daemon, const std::string& run) {
  auto response = daemon.client().get("/api/runs/" + run);
  EXPECT_EQ(response.status, 200) << response.body;
  return response.json().at("run").as_object();
}

std::vector<json::object> audit_of(const test::DaemonProcess& daemon, const std::string& run, const std::string& type) {
  std::vector<json::object> out;
  auto page = daemon.client().get("/api/runs/" + run + "/audit?limit=500").json();
  for (const auto& e : page.at("events").as_array())
    if (e.at("type") == json::value(type)) out.push_back(e.as_object());
  return out;
}

std::map<std::int64_t, std::string> timeline_of(const test::DaemonProcess& daemon, const std::string& run) {
  std::map<std::int64_t, std::string> out;
  std::int64_t after = 0;
  for (;;) {
    auto page = daemon.client().get("/api/runs/" + run + "/timeline?limit=5000&after=" + std::to_string(after));
    EXPECT_EQ(page.status, 200) << page.body;
    if (page.status != 200) break;
    const auto body = page.json().as_object();
    const auto& events = body.at("events").as_array();
    for (const auto& e : events) out[e.at("cursor").as_int64()] = std::string(e.at("kind").as_string());
    if (events.empty()) break;
    after = body.at("lastCursor").as_int64();
  }
  return out;
}

std::unique_ptr<test::DaemonProcess> member(const test::TempDir& dir, const std::filesystem::path& config,
                                            const std::string& store, const std::string& name, Env env) {
  auto daemon = std::make_unique<test::DaemonProcess>(test::DaemonOptions{
      .home = dir.path() / name, .config_dir = config, .env = std::move(env),
      .extra_args = {"--store", store, "--name", name}});
  daemon->start();
  return daemon;
}

std::string start_run(const test::DaemonProcess& daemon, const std::string& agent, const std::string& cwd,
                      json::object extra) {
  json::object body{{"agent", agent}, {"callerCwd", cwd}, {"overrides", {{"message", "go"}}}};
  for (auto& [key, value] : extra) body[key] = std::move(value);
  auto started = daemon.client().post_json("/api/runs", body);
  EXPECT_EQ(started.status, 201) << started.body;
  if (started.status != 201) return {};
  return std::string(started.json().at("run").at("runId").as_string());
}

std::string wait_while_status(const test::DaemonProcess& daemon, const std::string& run, const std::string& from,
                              std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::string status = from;
  while (status == from && Clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
    status = std::string(run_of(daemon, run).at("status").as_string());
  }
  return status;
}

Cluster::Cluster(int count, const std::string& agent, const std::string& steps, const Env& env) {
  dir.write_file("config/agents/" + agent + "/agent.md", "---\nschemaVersion: 1\nbackend: mock\nbackendConfig:\n"
                                                         "  mock: {steps: " + steps + "}\n---\nWork.\n");
  store = test::PostgresCluster::shared()->create_database();
  const char* names[] = {"alpha", "beta", "gamma"};
  for (int i = 0; i < count; ++i) add(names[i], env);
}

test::DaemonProcess& Cluster::add(const std::string& name, Env env) {
  members.push_back(member(dir, config, store, name, std::move(env)));
  return *members.back();
}

}  // namespace agentry::integration
