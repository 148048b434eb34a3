// Load driver: several daemons on one PostgreSQL (docs/scale-out.md), beside one daemon on
// SQLite. Each case starts its daemons on a private store, starts `runs_per_member` mock
// runs on every member, each emitting `events` durable notices flat out, and waits for
// every run to end:
//   events_per_second   durable events committed per second, all members together
//   api_p50_ms/p99_ms   GET /api/runs/<id> of a random run on a random member, sampled
//                       every 5 ms while the runs stream
//   cpu_us_per_event    CPU time (user + system) of each daemon per event it committed
// BM_Takeover: three members at the default lease time (10 s), 100 runs streaming on each;
// one member is paused (SIGSTOP: silent as a member on another machine would be): the time
// from the pause until each of its runs is taken over and reconciled by the others
// (takeover_p50_ms, takeover_p99_ms, takeover_max_ms).
// The daemon binary comes from $AGENTRY_BIN, else <this program>/../bin/agentry.

#include "daemon_binary.hpp"
#include "support/daemon_process.hpp"
#include "support/postgres_cluster.hpp"
#include "support/temp_dir.hpp"

#include <benchmark/benchmark.h>

#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>
#include <unistd.h>

namespace agentry::bench {
namespace {
namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

double cpu_us(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i)
    if (i >= 14) ticks += std::stod(field);
  return ticks * 1e6 / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<std::size_t>(p * static_cast<double>(values.size())))];
}

struct Cluster {
  test::TempDir dir;
  std::vector<std::unique_ptr<test::DaemonProcess>> members;

  /// `members` daemons on one fresh PostgreSQL database, or one on SQLite when 0.
  Cluster(int count, const std::string& steps, std::vector<std::pair<std::string, std::string>> env = {}) {
    dir.write_file("config/agents/streamer/agent.md", "---\nschemaVersion: 1\nbackend: mock\nbackendConfig:\n  mock: {steps: " +
                                                          steps + "}\n---\nStream.\n");
    std::string store;
    if (count > 0) store = test::PostgresCluster::shared()->create_database();
    for (int i = 0; i < std::max(count, 1); ++i) {
      test::DaemonOptions options;
      options.home = dir.path() / ("member-" + std::to_string(i));
      options.config_dir = dir.path() / "config";
      options.binary = daemon_binary();
      options.env = env;
      options.env.emplace_back("AGENTRY_LOG_LEVEL", "warn");
      if (count > 0) options.extra_args = {"--store", store, "--name", "member-" + std::to_string(i)};
      members.push_back(std::make_unique<test::DaemonProcess>(options));
      members.back()->start();
    }
  }

  /// Starts `per_member` runs on every member; their ids, by member.
  std::vector<std::vector<std::string>> start_runs(int per_member) {
    std::vector<std::vector<std::string>> runs(members.size());
    for (int i = 0; i < per_member; ++i)
      for (std::size_t m = 0; m < members.size(); ++m) {
        auto started = members[m]->client().post_json(
            "/api/runs", json::object{{"agent", "streamer"},
                                      {"callerCwd", dir.path().string()},
                                      {"overrides", {{"message", "go"}}}});
        if (started.status != 201) throw std::runtime_error("start: HTTP " + std::to_string(started.status) + started.body);
        runs[m].emplace_back(started.json().at("run").at("runId").as_string());
      }
    return runs;
  }

  std::string status(std::size_t member, const std::string& run) {
    auto got = members[member]->client().get("/api/runs/" + run);
    if (got.status != 200) return "unreadable";
    return std::string(got.json().at("run").at("status").as_string());
  }
};

void BM_ClusterEvents(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  const int per_member = static_cast<int>(state.range(1));
  const int events = static_cast<int>(state.range(2));
  if (count > 0)
    if (auto missing = test::PostgresCluster::missing_reason()) return state.SkipWithError(missing->c_str());
  for (auto _ : state) {
    Cluster cluster(count, "[{events: " + std::to_string(events) + ", kind: notice}]");
    std::vector<double> cpu_before;
    for (auto& m : cluster.members) cpu_before.push_back(cpu_us(m->pid()));
    const auto began = Clock::now();
    auto runs = cluster.start_runs(per_member);
    std::vector<std::string> all;
    for (const auto& r : runs) all.insert(all.end(), r.begin(), r.end());
    // Reads while the runs stream, on every member.
    std::atomic<bool> streaming{true};
    std::vector<double> latencies;
    std::thread sampler([&] {
      std::mt19937 random(7);
      while (streaming) {
        auto& member = *cluster.members[random() % cluster.members.size()];
        const auto sent = Clock::now();
        (void)member.client().get("/api/runs/" + all[random() % all.size()]);
        latencies.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
        std::this_thread::sleep_for(5ms);
      }
    });
    std::size_t done = 0;
    std::map<std::string, std::string> ended;
    while (done < all.size() && Clock::now() - began < 600s) {
      std::this_thread::sleep_for(200ms);
      for (const auto& run : all) {
        if (ended.count(run)) continue;
        auto status = cluster.status(0, run);
        if (status != "running" && status != "unreadable") ended[run] = status, ++done;
      }
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - began).count();
    streaming = false;
    sampler.join();
    std::size_t succeeded = 0;
    for (const auto& [run, status] : ended) succeeded += status == "success" ? 1 : 0;
    if (succeeded != all.size()) state.SkipWithError("not every run ended in success");
    const double total = static_cast<double>(all.size()) * events;
    state.SetIterationTime(seconds);
    state.counters["events_per_second"] = total / seconds;
    state.counters["api_p50_ms"] = percentile(latencies, 0.50);
    state.counters["api_p99_ms"] = percentile(latencies, 0.99);
    double cpu = 0;
    for (std::size_t m = 0; m < cluster.members.size(); ++m) cpu += cpu_us(cluster.members[m]->pid()) - cpu_before[m];
    state.counters["cpu_us_per_event"] = cpu / total;
  }
}

void BM_Takeover(benchmark::State& state) {
  if (auto missing = test::PostgresCluster::missing_reason()) return state.SkipWithError(missing->c_str());
  const int per_member = static_cast<int>(state.range(0));
  for (auto _ : state) {
    Cluster cluster(3, "[{events: 1000000, kind: notice, rateHz: 5}]");
    auto runs = cluster.start_runs(per_member);
    std::this_thread::sleep_for(2s);
    auto& paused = *cluster.members[0];
    const auto began = Clock::now();
    ::kill(paused.pid(), SIGSTOP);
    std::vector<double> taken;
    std::map<std::string, bool> seen;
    while (taken.size() < runs[0].size() && Clock::now() - began < 60s) {
      std::this_thread::sleep_for(50ms);
      for (const auto& run : runs[0])
        if (!seen[run] && cluster.status(1, run) != "running") {
          seen[run] = true;
          taken.push_back(std::chrono::duration<double, std::milli>(Clock::now() - began).count());
        }
    }
    ::kill(paused.pid(), SIGCONT);
    if (taken.size() != runs[0].size()) state.SkipWithError("not every run was taken over within 60 s");
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - began).count());
    state.counters["takeover_p50_ms"] = percentile(taken, 0.50);
    state.counters["takeover_p99_ms"] = percentile(taken, 0.99);
    state.counters["takeover_max_ms"] = taken.empty() ? 0 : *std::max_element(taken.begin(), taken.end());
  }
}

// members (0 = one daemon on SQLite), runs per member, events per run.
BENCHMARK(BM_ClusterEvents)
    ->Args({0, 300, 1000})
    ->Args({1, 300, 1000})
    ->Args({3, 100, 1000})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_Takeover)->Arg(100)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);

}  // namespace
}  // namespace agentry::bench
