// Load driver: one request/response through the real daemon, over HTTP (keep-alive) and
// over WebSocket JSON-RPC, for a read (runs.get: a RunDetail of a run with 3 tasks) and
// a write (tasks.appendNotes: one committed transaction, synchronous=FULL). Both
// transports call the same operation, so the difference is the transport's own cost.
// The same reads on the compat listener (AGENTRY_COMPAT_LISTEN: agent-runner's wire,
// translated from ours at the edge) give the translation's cost as a ratio.
// The daemon binary comes from $AGENTRY_BIN, else <this program>/../bin/agentry.

#include "daemon_binary.hpp"
#include "support/daemon_process.hpp"
#include "support/http_client.hpp"
#include "support/temp_dir.hpp"
#include "support/ws_client.hpp"

#include <benchmark/benchmark.h>

#include <boost/json.hpp>

#include <memory>

namespace agentry::bench {
namespace {
namespace json = boost::json;


/// One daemon for every benchmark of this program, with one passive run to read and write.
struct Fixture {
  test::TempDir dir;
  std::unique_ptr<test::DaemonProcess> daemon;
  std::string run_id;

  Fixture() {
    dir.write_file("config/agents/worker/agent.md",
                   "---\nschemaVersion: 1\nbackend: passive\n---\nWorker.\n");
    dir.write_file("config/assignments/feature/assignment.md",
                   "---\nschemaVersion: 1\ntasks:\n  - {id: plan, title: Plan}\n  - {id: build, title: Build}\n"
                   "  - {id: check, title: Check}\n---\nDo it.\n");
    test::DaemonOptions options;
    options.home = dir.path() / "home";
    options.config_dir = dir.path() / "config";
    options.binary = daemon_binary();
    options.env = {{"AGENTRY_COMPAT_LISTEN", "ws://127.0.0.1:0/"}};
    daemon = std::make_unique<test::DaemonProcess>(options);
    daemon->start();
    auto created = daemon->client().post_json(
        "/api/runs/init", json::object{{"agent", "worker"}, {"assignment", "feature"}, {"callerCwd", dir.path().string()}});
    if (created.status != 201) throw std::runtime_error("cannot create the run: " + created.body);
    run_id = std::string(created.json().at("run").at("runId").as_string());
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

void BM_HttpGetRun(benchmark::State& state) {
  auto& f = fixture();
  auto client = f.daemon->client();
  for (auto _ : state) {
    auto r = client.get("/api/runs/" + f.run_id);
    if (r.status != 200) return state.SkipWithError(r.body.c_str());
  }
}

void BM_WsGetRun(benchmark::State& state) {
  auto& f = fixture();
  test::WsClient ws("127.0.0.1", f.daemon->port());
  for (auto _ : state) {
    auto r = ws.call("runs.get", json::object{{"runId", f.run_id}});
    if (r.contains("error")) return state.SkipWithError(json::serialize(r).c_str());
  }
}

void BM_HttpAppendNotes(benchmark::State& state) {
  auto& f = fixture();
  auto client = f.daemon->client();
  for (auto _ : state) {
    auto r = client.post_json("/api/runs/" + f.run_id + "/tasks/plan/append-notes", json::object{{"text", "x"}});
    if (r.status != 200) return state.SkipWithError(r.body.c_str());
  }
}

void BM_WsAppendNotes(benchmark::State& state) {
  auto& f = fixture();
  test::WsClient ws("127.0.0.1", f.daemon->port());
  for (auto _ : state) {
    auto r = ws.call("tasks.appendNotes", json::object{{"runId", f.run_id}, {"taskId", "build"}, {"text", "x"}});
    if (r.contains("error")) return state.SkipWithError(json::serialize(r).c_str());
  }
}

void BM_CompatHttpGetRun(benchmark::State& state) {
  auto& f = fixture();
  auto client = f.daemon->compat_client();
  for (auto _ : state) {
    auto r = client.get("/api/runs/" + f.run_id);
    if (r.status != 200) return state.SkipWithError(r.body.c_str());
  }
}

void BM_CompatWsGetRun(benchmark::State& state) {
  auto& f = fixture();
  test::WsClient ws("127.0.0.1", f.daemon->compat_port());
  for (auto _ : state) {
    auto r = ws.call("runs.get", json::object{{"target", f.run_id}});
    if (r.contains("error")) return state.SkipWithError(json::serialize(r).c_str());
  }
}

void BM_HttpListRuns(benchmark::State& state) {
  auto& f = fixture();
  auto client = f.daemon->client();
  for (auto _ : state) {
    auto r = client.get("/api/runs?global=true");
    if (r.status != 200) return state.SkipWithError(r.body.c_str());
  }
}

void BM_CompatHttpListRuns(benchmark::State& state) {
  auto& f = fixture();
  auto client = f.daemon->compat_client();
  for (auto _ : state) {
    auto r = client.get("/api/runs");
    if (r.status != 200) return state.SkipWithError(r.body.c_str());
  }
}

BENCHMARK(BM_HttpGetRun)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CompatHttpGetRun)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CompatWsGetRun)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HttpListRuns)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CompatHttpListRuns)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_WsGetRun)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HttpAppendNotes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_WsAppendNotes)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace agentry::bench
