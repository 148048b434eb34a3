// Attachment transfers through the real daemon (a child process): a 25 MiB file uploaded
// and downloaded over HTTP (raw body / file response) and over WebSocket byte streams
// (stream.data with stream.window credit, 64 KiB chunks). Every case starts a fresh
// daemon, so its peak resident set (VmHWM) before and after says how much memory the
// transfers needed: they must stay bounded (spooled to disk, read from the file) instead
// of growing with the file.
//
// Counters:
//   bytes_per_second   the file's bytes moved per second of wall time (Google Benchmark's)
//   rss_delta_mb       the daemon's VmHWM at the end minus at the start of the case
//   rss_peak_mb        its VmHWM at the end
// The daemon binary comes from $AGENTRY_BIN, else <this program>/../bin/agentry.

#include "daemon_binary.hpp"
#include "process_stats.hpp"
#include "support/daemon_process.hpp"
#include "support/http_client.hpp"
#include "support/temp_dir.hpp"
#include "support/ws_client.hpp"

#include "core/base64.hpp"

#include <benchmark/benchmark.h>

#include <boost/json.hpp>

#include <cstring>
#include <random>

namespace agentry::bench {
namespace {
namespace json = boost::json;

constexpr std::size_t file_bytes = 25 * 1024 * 1024;

const std::string& payload() {
  static const std::string bytes = [] {
    std::mt19937_64 gen(42);
    std::string out(file_bytes, '\0');
    for (std::size_t i = 0; i + 8 <= out.size(); i += 8) {
      const auto v = gen();
      std::memcpy(out.data() + i, &v, 8);
    }
    return out;
  }();
  return bytes;
}

std::string notify(const std::string& method, json::object params) {
  return json::serialize(json::object{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

struct Daemon {
  test::TempDir dir;
  std::unique_ptr<test::DaemonProcess> process;
  std::string run_id;

  Daemon() {
    dir.write_file("config/agents/worker/agent.md", "---\nschemaVersion: 1\nbackend: passive\n---\nWorker.\n");
    test::DaemonOptions options;
    options.home = dir.path() / "home";
    options.config_dir = dir.path() / "config";
    options.binary = daemon_binary();
    process = std::make_unique<test::DaemonProcess>(options);
    process->start();
    auto created = process->client().post_json("/api/runs/init",
                                               json::object{{"agent", "worker"}, {"callerCwd", dir.path().string()}, {"overrides", {{"message", "bench"}}}});
    if (created.status != 201) throw std::runtime_error("cannot create the run: " + created.body);
    run_id = std::string(created.json().at("run").at("runId").as_string());
  }
  long hwm_kb() const { return status_kb(process->pid(), "VmHWM"); }
};

std::string http_upload(Daemon& d) {
  auto r = d.process->client().post("/api/runs/" + d.run_id + "/attachments", payload(),
                                     {{"X-Agentry-Attachment-Name", "bench.bin"}}, "application/octet-stream");
  if (r.status != 201) throw std::runtime_error("upload failed: " + r.body.substr(0, 300));
  return std::string(r.json().at("attachment").at("attachmentId").as_string());
}

std::string ws_upload(Daemon& d, test::WsClient& ws) {
  const auto& bytes = payload();
  auto opened = ws.call("attachments.upload.open",
                        json::object{{"runId", d.run_id}, {"name", "bench.bin"}, {"size", bytes.size()}});
  if (!opened.contains("result")) throw std::runtime_error(json::serialize(opened));
  const std::string sid(opened.at("result").at("streamId").as_string());
  std::uint64_t credit = opened.at("result").at("window").to_number<std::uint64_t>(), offset = 0;
  std::int64_t seq = 0;
  while (offset < bytes.size()) {
    while (credit == 0) {
      auto n = ws.next_notification(std::chrono::seconds(30));
      if (!n) throw std::runtime_error("no stream.window");
      if (n->at("method") == "stream.error") throw std::runtime_error(json::serialize(*n));
      if (n->at("method") == "stream.window") credit += n->at("params").at("bytes").to_number<std::uint64_t>();
    }
    const auto k = std::min<std::uint64_t>({65536, credit, bytes.size() - offset});
    ws.send_text(notify("stream.data", {{"streamId", sid}, {"seq", seq++},
                                        {"data", core::base64_encode(std::string_view(bytes).substr(offset, k))}}));
    offset += k;
    credit -= k;
  }
  ws.send_text(notify("stream.end", {{"streamId", sid}, {"seq", seq}}));
  auto done = ws.call("attachments.upload.finish", json::object{{"streamId", sid}});
  if (!done.contains("result")) throw std::runtime_error(json::serialize(done));
  while (ws.next_notification(std::chrono::milliseconds(0))) {
  }
  return std::string(done.at("result").at("attachment").at("attachmentId").as_string());
}

void remove(Daemon& d, const std::string& id) {
  d.process->client().del("/api/runs/" + d.run_id + "/attachments/" + id);
}

void finish(benchmark::State& state, const Daemon& d, long hwm_before) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * file_bytes));
  const long after = d.hwm_kb();
  state.counters["rss_delta_mb"] = static_cast<double>(after - hwm_before) / 1024.0;
  state.counters["rss_peak_mb"] = static_cast<double>(after) / 1024.0;
}

void BM_HttpUpload(benchmark::State& state) {
  Daemon d;
  const long before = d.hwm_kb();
  for (auto _ : state) {
    auto id = http_upload(d);
    state.PauseTiming();
    remove(d, id);
    state.ResumeTiming();
  }
  finish(state, d, before);
}

void BM_HttpDownload(benchmark::State& state) {
  Daemon d;
  auto id = http_upload(d);
  const long before = d.hwm_kb();
  for (auto _ : state) {
    auto r = d.process->client().get("/api/runs/" + d.run_id + "/attachments/" + id + "/content");
    if (r.status != 200 || r.body.size() != file_bytes) return state.SkipWithError("download failed");
  }
  finish(state, d, before);
}

void BM_WsUpload(benchmark::State& state) {
  Daemon d;
  test::WsClient ws("127.0.0.1", d.process->port());
  const long before = d.hwm_kb();
  for (auto _ : state) {
    auto id = ws_upload(d, ws);
    state.PauseTiming();
    remove(d, id);
    state.ResumeTiming();
  }
  finish(state, d, before);
}

void BM_WsDownload(benchmark::State& state) {
  Daemon d;
  test::WsClient ws("127.0.0.1", d.process->port());
  auto id = http_upload(d);
  const long before = d.hwm_kb();
  for (auto _ : state) {
    auto r = ws.call("attachments.download", json::object{{"runId", d.run_id}, {"attachmentId", id}});
    if (!r.contains("result")) return state.SkipWithError(json::serialize(r).c_str());
    const std::string sid(r.at("result").at("streamId").as_string());
    std::uint64_t got = 0;
    for (;;) {
      auto n = ws.next_notification(std::chrono::seconds(30));
      if (!n) return state.SkipWithError("the download stalled");
      if (n->at("method") == "stream.end") break;
      if (n->at("method") != "stream.data") return state.SkipWithError(json::serialize(*n).c_str());
      const auto& data = n->at("params").at("data").as_string();
      auto bytes = core::base64_decode(std::string_view(data.data(), data.size()));
      if (!bytes) return state.SkipWithError("bad base64");
      got += bytes->size();
      ws.send_text(notify("stream.window", {{"streamId", sid}, {"bytes", bytes->size()}}));
    }
    if (got != file_bytes) return state.SkipWithError("short download");
  }
  finish(state, d, before);
}

BENCHMARK(BM_HttpUpload)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(4);
BENCHMARK(BM_HttpDownload)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(4);
BENCHMARK(BM_WsUpload)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(4);
BENCHMARK(BM_WsDownload)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(4);

}  // namespace
}  // namespace agentry::bench
