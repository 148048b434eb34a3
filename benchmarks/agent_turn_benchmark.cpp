// A text turn of a REAL agent through the daemon: POST /api/runs -> the run's `success`,
// for the pinned Codex and Claude Code against the loopback mock model
// (tests/e2e/mock_model). Each run starts a fresh agent process, so read the figure beside
// the agent's own cold start (tests/e2e/README.md), not beside a warm turn. A case is
// skipped when its agent is not installed (scripts/install-agents.sh); it needs a local
// daemon, since it writes the agents' definitions beside it.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>

#include "bench_daemon.hpp"
#include "support/agent_binaries.hpp"
#include "support/codex_app_server.hpp"
#include "support/mock_model.hpp"
#include "support/temp_dir.hpp"

namespace agentry::bench {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

enum class Agent { codex, claude };

// backendConfig.<agent>: the binary, its homes, the mock (as tests/e2e/daemon_agents_test).
json::object backend_config(Agent agent, const fs::path& binary, const test::MockModel& mock,
                            const test::CodexHome* codex_home, const fs::path& agent_home) {
  if (agent == Agent::codex)
    return {{"command", binary.string()},
            {"codexHome", codex_home->path().string()},
            {"env", {{test::kMockKeyName, test::kMockKeyValue}, {"HOME", agent_home.string()}}}};
  return {{"binary", binary.string()},
          {"env",
           {{"HOME", agent_home.string()},
            {"ANTHROPIC_BASE_URL", mock.anthropic_base_url()},
            {"ANTHROPIC_API_KEY", "dummy"},
            {"CLAUDE_CODE_MAX_RETRIES", "0"}}}};
}

void BM_TextTurn(benchmark::State& state, Agent agent) {
  const char* name = agent == Agent::codex ? "codex" : "claude";
  const std::optional<fs::path> binary = agent == Agent::codex ? test::codex_binary() : test::claude_binary();
  if (!binary) {
    state.SkipWithError((std::string(name) + " is not installed (scripts/install-agents.sh)").c_str());
    return;
  }
  if (remote_daemon()) {
    state.SkipWithError("needs a local daemon: the agent's definition is written beside it");
    return;
  }
  test::TempDir dir;
  test::MockModel mock;
  std::optional<test::CodexHome> codex_home;
  if (agent == Agent::codex) codex_home.emplace(mock);
  const fs::path agent_home = dir.path() / "agent-home";
  fs::create_directories(agent_home);
  const json::object config =
      backend_config(agent, *binary, mock, codex_home ? &*codex_home : nullptr, agent_home);
  dir.write_file("config/agents/talker/agent.md", std::string("---\nschemaVersion: 1\nbackend: ") + name +
                                                      "\nbackendConfig:\n  " + name + ": " + json::serialize(config) +
                                                      "\nunrestricted: true\n---\nA text turn.\n");
  BenchDaemon daemon({.home = dir.path() / "home", .config_dir = dir.path() / "config"});
  test::HttpClient http = daemon.client();

  std::vector<double> ms;
  for (auto _ : state) {
    const auto begun = Clock::now();
    const test::HttpResponse created = http.post_json(
        "/api/runs", json::object{{"agent", "talker"},
                                  {"callerCwd", daemon.caller_cwd()},
                                  {"overrides", {{"message", "SAY: Reply number " + std::to_string(ms.size()) + "."}}}});
    if (created.status != 201) {
      state.SkipWithError(("POST /api/runs answered " + std::to_string(created.status) + ": " + created.body).c_str());
      return;
    }
    const std::string run(created.json().at("run").at("runId").as_string());
    std::string status = "running";
    while (status == "running" && Clock::now() - begun < std::chrono::seconds(90)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      status = std::string(http.get("/api/runs/" + run).json().at("run").at("status").as_string());
    }
    if (status != "success") {
      state.SkipWithError(("run " + run + " ended " + status).c_str());
      return;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - begun).count());
  }
  std::sort(ms.begin(), ms.end());
  state.counters["p50_ms"] = ms[ms.size() / 2];
  state.counters["max_ms"] = ms.back();
}

BENCHMARK_CAPTURE(BM_TextTurn, codex, Agent::codex)->Iterations(5)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_TextTurn, claude, Agent::claude)->Iterations(5)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace agentry::bench
