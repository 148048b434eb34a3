// Load driver: 8 concurrent aborts of runs whose backend ignores interrupts (the fake
// plugin "never_terminal"), and meanwhile GET /api/daemon every 5 ms and a live SSE
// stream of another run emitting 500 notices a second. Reports how long the aborts took
// to be answered, the latency of the other requests (p50, p99, max) and the longest gap
// in the stream, over the interrupt grace (3 s). A request worker that waited on an
// agent would show here as seconds.
//
// The daemon binary comes from $AGENTRY_BIN, else <this program>/../bin/agentry; the
// fake plugins from $AGENTRY_ABI_FAKES_DIR, else <build>/tests/abi/plugins.

#include "daemon_binary.hpp"
#include "support/daemon_process.hpp"
#include "support/http_client.hpp"
#include "support/temp_dir.hpp"

#include <benchmark/benchmark.h>

#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <future>
#include <thread>

namespace agentry::bench {
namespace {
namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

std::filesystem::path build_dir() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path();
}
std::filesystem::path daemon_binary() {
  if (const char* bin = std::getenv("AGENTRY_BIN")) return bin;
  return build_dir() / "bin" / "agentry";
}
std::string fakes_dir() {
  if (const char* dir = std::getenv("AGENTRY_ABI_FAKES_DIR")) return dir;
  return (build_dir() / "tests" / "abi" / "plugins").string();
}

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<std::size_t>(p * static_cast<double>(values.size())))];
}

std::string start_run(test::HttpClient& client, const std::string& agent, const std::string& cwd) {
  auto r = client.post_json("/api/runs", json::object{{"agent", agent}, {"callerCwd", cwd}, {"overrides", {{"message", "go"}}}});
  if (r.status != 201) throw std::runtime_error("cannot start a run: " + r.body);
  return std::string(r.json().at("run").at("runId").as_string());
}

void BM_AbortStorm(benchmark::State& state) {
  for (auto _ : state) {
    test::TempDir dir;
    dir.write_file("config/agents/stubborn/agent.md", "---\nschemaVersion: 1\nbackend: fake-never_terminal\n---\n");
    dir.write_file("config/agents/talker/agent.md",
                   "---\nschemaVersion: 1\nbackend: mock\nbackendConfig:\n  mock:\n    steps: [{events: 3000, kind: "
                   "notice, rateHz: 500}]\n---\n");
    test::DaemonOptions options;
    options.home = dir.path() / "home";
    options.config_dir = dir.path() / "config";
    options.binary = daemon_binary();
    options.env = {{"AGENTRY_PLUGIN_PATH", fakes_dir()}, {"AGENTRY_INTERRUPT_GRACE_MS", "3000"}};
    test::DaemonProcess daemon(options);
    daemon.start();
    auto client = daemon.client();
    client.set_timeout(30s);
    const std::string cwd = dir.path().string();
    std::vector<std::string> stubborn;
    for (int i = 0; i < 8; ++i) stubborn.push_back(start_run(client, "stubborn", cwd));
    const std::string talker = start_run(client, "talker", cwd);

    // The stream: the longest gap between two notices while the aborts are handled.
    std::atomic<bool> done{false};
    std::atomic<double> max_gap{0};
    std::atomic<int> notices{0};
    std::thread follower([&] {
      auto sse = daemon.client().sse("/api/runs/" + talker + "/events/timeline");
      auto last = Clock::now();
      while (!done) {
        auto event = sse.next(500ms);
        if (!event) continue;
        const auto now = Clock::now();
        if (notices++ > 0) max_gap = std::max(max_gap.load(), ms(now - last));
        last = now;
      }
    });
    std::this_thread::sleep_for(300ms);  // the stream is flowing

    const auto begin = Clock::now();
    std::vector<std::future<double>> aborts;
    for (const auto& id : stubborn)
      aborts.push_back(std::async(std::launch::async, [&daemon, id] {
        auto c = daemon.client();
        c.set_timeout(30s);
        const auto t0 = Clock::now();
        c.post_json("/api/runs/" + id + "/abort", json::object{});
        return ms(Clock::now() - t0);
      }));
    std::vector<double> daemon_latency;
    while (Clock::now() - begin < 3s) {
      const auto t0 = Clock::now();
      auto r = client.get("/api/daemon");
      daemon_latency.push_back(ms(Clock::now() - t0));
      if (r.status != 200) state.SkipWithError("GET /api/daemon failed");
      std::this_thread::sleep_for(5ms);
    }
    double slowest_abort = 0;
    for (auto& f : aborts) slowest_abort = std::max(slowest_abort, f.get());
    done = true;
    follower.join();
    state.counters["abort_answer_max_ms"] = slowest_abort;
    state.counters["daemon_get_p50_ms"] = percentile(daemon_latency, 0.50);
    state.counters["daemon_get_p99_ms"] = percentile(daemon_latency, 0.99);
    state.counters["daemon_get_max_ms"] = percentile(daemon_latency, 1.0);
    state.counters["daemon_gets"] = static_cast<double>(daemon_latency.size());
    state.counters["stream_max_gap_ms"] = max_gap.load();
    state.counters["stream_notices"] = notices.load();
    daemon.stop(SIGTERM, 30s);
  }
}
BENCHMARK(BM_AbortStorm)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace agentry::bench
