// Load driver: a mock run's events from the plugin's emit() to timeline subscribers of the
// real daemon (a child process), over loopback SSE (GET /api/runs/:id/events/timeline) and
// WebSocket JSON-RPC (events.subscribe run_timeline). The clients live in this process and
// share two epoll threads; they scan each envelope for the fields they check instead of
// parsing it whole, so 100 subscribers are not held back by the client.
//
// Every case starts a fresh daemon and one run of the mock agent `streamer`
// (benchmarks/config) whose script, "@mock" lines of the run's message, first asks for an
// approval: the subscribers connect, each waits for the approval.request event (so it is
// live), then the driver approves and the script emits its events:
//   durable   N notices (stored, each with a cursor) as fast as the host takes them
//   deltas    N ephemeral message.delta, then message.completed with the whole text
//             ({"events":n,"kind":"delta","complete":true}), flat out, in messages of at
//             most 50,000 deltas (a completed message's payload must stay under 1 MiB)
//   latency   notices or deltas paced at rate_hz, stamped with CLOCK_MONOTONIC at emit
//
// Every subscriber's stream is checked (tests/support/timeline_stream.hpp): it must end
// at run.finished, durable cursors must run 1, 2, 3... with no gap, no delta may arrive
// after its item's message.completed, its attempt's attempt.finished or run.finished,
// every item's message.completed must come, and the item's deltas, joined, must be its
// text. A case that breaks any of this is labelled FAIL with the first breach (and the
// daemon's last log lines); its figures still print.
//
// Counters:
//   events             events the script emitted after the gate
//   complete           subscribers whose stream passed every check (of `subs`)
//   events_per_s       events / (gate -> run.finished), per subscriber, averaged
//   deliveries_per_s   envelopes received by all subscribers / (gate -> last run.finished)
//   env_per_sub        envelopes a subscriber received (fewer than events when deltas
//                      were conflated), averaged; conflated: envelopes marked so, in all
//   bytes_per_env      bytes on the wire per envelope received (framing included): with
//                      loopback TCP's bytes/s, the deliveries/s the socket itself allows
//   p50_us, p99_us     emit -> client latency (latency cases)
//   rss_mb             the daemon's peak resident set (VmHWM) at the end of the case
//   daemon_ns_per_env  the daemon's CPU time (all threads, the backend's included) from the
//                      gate to the end, per envelope received: steadier than the rates,
//                      which move with what else the machine runs
//   writer_ns_per_event the store's writer thread's CPU time over the same span, per event
//                      it wrote (durable and live: /metrics, agentry_store_writer_cpu_seconds_total
//                      over agentry_timeline_events_total): issue 31 asks under 1 us
//   events_per_commit  events the writer wrote per transaction over the same span
// The daemon binary comes from $AGENTRY_BIN, else <this program>/../bin/agentry. With
// AGENTRY_BENCH_DAEMON=http://host:port the cases drive that daemon instead (bench_daemon.hpp):
// no rss_mb, and no latency cases (the mock stamps emits with its machine's monotonic clock).
// AGENTRY_STREAM_BENCH_SCALE (default 1) scales every event count, e.g. 0.05 for a quick look.

#include "bench_daemon.hpp"
#include "process_stats.hpp"
#include "support/http_client.hpp"
#include "support/temp_dir.hpp"
#include "support/timeline_stream.hpp"

#include <benchmark/benchmark.h>

#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>

#include <sys/epoll.h>
#include <unistd.h>

namespace agentry::bench {
namespace {
namespace json = boost::json;
using test::StreamTransport;
using Clock = std::chrono::steady_clock;


double scale() {
  const char* s = std::getenv("AGENTRY_STREAM_BENCH_SCALE");
  const double v = s ? std::atof(s) : 1.0;
  return v > 0 ? v : 1.0;
}

enum class Kind { notice, delta };

/// The store's writer thread's CPU time, the events it has written and its commits so far.
struct WriterSample {
  double cpu_s = 0;
  double events = 0;
  double commits = 0;
};

WriterSample writer_sample(const BenchDaemon& daemon) {
  return {daemon.metric("agentry_store_writer_cpu_seconds_total"),
          daemon.metric("agentry_timeline_events_total{persistence=\"durable\"}") +
              daemon.metric("agentry_timeline_events_total{persistence=\"live\"}"),
          daemon.metric("agentry_store_commit_seconds_count")};
}

struct Case {
  StreamTransport transport;
  Kind kind;
  int subscribers;
  int rate_hz;  // 0: flat out
  long events;
  std::string name;
};

struct Subscriber {
  explicit Subscriber(test::TimelineStreamOptions options) : stream(std::move(options)) {}
  test::TimelineStream stream;
  test::TimelineChecker checker{0, /*keep_text=*/false};
  test::Envelope envelope;
  std::string scan_error;
  bool ready = false;     // saw approval.request: live
  bool finished = false;  // saw run.finished
  bool ended = false;     // the server closed the stream
  Clock::time_point finished_at{};
  std::uint64_t envelopes = 0;  // after the gate
  std::uint64_t received = 0;   // all, for the bytes per envelope
  std::vector<std::int64_t> latencies_ns;
};

struct Shared {
  std::atomic<int> ready{0};
  std::atomic<int> done{0};  // finished or ended
  std::atomic<bool> gate_open{false};
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> last_progress_ns{0};
  bool latency = false;
};

std::int64_t mono_ns(Clock::time_point t) { return t.time_since_epoch().count(); }

/// One epoll thread serving its share of the subscribers until told to stop.
void reactor(std::vector<Subscriber*> subs, Shared& shared) {
  const int ep = ::epoll_create1(EPOLL_CLOEXEC);
  for (std::size_t i = 0; i < subs.size(); ++i) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, subs[i]->stream.fd(), &ev);
  }
  Clock::time_point now;
  auto handle = [&](Subscriber& s) {
    return [&s, &now, &shared](std::string_view text, std::optional<std::int64_t> framed) {
      auto& e = s.envelope;
      if (!test::scan_envelope(text, e, &s.scan_error)) return s.checker.fail(s.scan_error);
      if (framed != e.cursor)
        s.checker.fail("the transport framed cursor " + (framed ? std::to_string(*framed) : std::string("none")) +
                       " around an envelope with cursor " + (e.cursor ? std::to_string(*e.cursor) : std::string("null")));
      s.checker.on_envelope(e);
      ++s.received;
      if (!s.ready && e.cursor && e.kind == "approval.request") {
        s.ready = true;
        shared.ready.fetch_add(1);
      }
      if (shared.gate_open.load(std::memory_order_relaxed)) {
        ++s.envelopes;
        if (shared.latency && e.emitted_at_ns) s.latencies_ns.push_back(mono_ns(now) - *e.emitted_at_ns);
      }
      if (!s.finished && s.checker.finished()) {
        s.finished = true;
        s.finished_at = now;
        shared.done.fetch_add(1);
      }
    };
  };
  for (auto* s : subs) {
    now = Clock::now();
    s->stream.drain_buffered(handle(*s));
  }
  constexpr std::size_t chunk = 256 * 1024;
  std::vector<epoll_event> events(subs.size());
  while (!shared.stop.load()) {
    const int n = ::epoll_wait(ep, events.data(), static_cast<int>(events.size()), 50);
    for (int i = 0; i < n; ++i) {
      Subscriber& s = *subs[events[i].data.u64];
      auto handler = handle(s);
      for (;;) {
        now = Clock::now();
        const auto got = s.stream.read_some(handler, chunk);
        if (got > 0) shared.last_progress_ns.store(mono_ns(now), std::memory_order_relaxed);
        if (got < chunk || s.stream.ended()) break;
      }
      if (s.stream.ended() && !s.ended) {
        s.ended = true;
        ::epoll_ctl(ep, EPOLL_CTL_DEL, s.stream.fd(), nullptr);
        if (!s.finished) {
          s.checker.fail("the stream ended before run.finished: " + s.stream.end_reason());
          shared.done.fetch_add(1);
        }
      }
    }
  }
  ::close(ep);
}

/// Deltas go out as messages of at most this many: a message.completed carries the whole
/// text, and 50,000 deltas ("event 1".."event 50000", 539 KB) keep it under the plugin
/// ABI's 1 MiB payload limit (100,000 would be 1.09 MB, and the host refuses the event).
constexpr long max_deltas_per_message = 50'000;

/// The run's message: the mock's script, one "@mock" step a line.
std::string script_message(const Case& c, long events) {
  std::string lines = "@mock {\"ask\": {\"summary\": \"start streaming\", \"kind\": \"command\"}}\n";
  for (long left = events; left > 0;) {
    const long n = c.kind == Kind::delta ? std::min(left, max_deltas_per_message) : left;
    left -= n;
    lines += "@mock {\"events\": " + std::to_string(n) +
             (c.kind == Kind::delta ? ", \"kind\": \"delta\", \"complete\": true" : ", \"kind\": \"notice\"");
    if (c.rate_hz > 0) lines += ", \"timestamps\": true, \"rateHz\": " + std::to_string(c.rate_hz);
    lines += "}\n";
  }
  return lines;
}

std::string wait_for_approval(test::HttpClient client, const std::string& run_id, Clock::time_point deadline) {
  while (Clock::now() < deadline) {
    auto detail = client.get("/api/runs/" + run_id);
    if (detail.status == 200) {
      const auto body = detail.json();
      const auto& pending = body.at("run").at("pendingApprovals").as_array();
      if (!pending.empty()) return std::string(pending.at(0).at("approvalId").as_string());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return {};
}

void BM_Stream(benchmark::State& state, Case c) {
  const long events = std::max(100L, static_cast<long>(static_cast<double>(c.events) * scale()));
  if (c.rate_hz > 0 && remote_daemon())
    return state.SkipWithError("a latency case needs a local daemon (emit times are this machine's clock)");
  test::TempDir dir;
  std::unique_ptr<BenchDaemon> started;
  try {
    started = std::make_unique<BenchDaemon>(BenchDaemonOptions{.home = dir.path() / "home"});
  } catch (const std::exception& e) {
    return state.SkipWithError(e.what());
  }
  BenchDaemon& daemon = *started;

  for (auto _ : state) {
    auto created = daemon.client().post_json(
        "/api/runs", json::object{{"agent", "streamer"}, {"callerCwd", daemon.caller_cwd()},
                                  {"overrides", {{"message", script_message(c, events)}}}});
    if (created.status != 201) return state.SkipWithError(created.body.c_str());
    const std::string run_id(created.json().at("run").at("runId").as_string());

    std::vector<std::unique_ptr<Subscriber>> subs;
    try {
      for (int i = 0; i < c.subscribers; ++i) {
        test::TimelineStreamOptions o;
        o.transport = c.transport;
        o.host = daemon.host();
        o.port = daemon.port();
        o.bearer_token = daemon.token();
        o.run_id = run_id;
        subs.push_back(std::make_unique<Subscriber>(o));
        subs.back()->stream.open();
      }
    } catch (const std::exception& e) {
      return state.SkipWithError(e.what());
    }

    Shared shared;
    shared.latency = c.rate_hz > 0;
    const int threads = std::min(c.subscribers, 2);
    std::vector<std::vector<Subscriber*>> shares(static_cast<std::size_t>(threads));
    for (std::size_t i = 0; i < subs.size(); ++i) shares[i % shares.size()].push_back(subs[i].get());
    std::vector<std::thread> reactors;
    for (auto& share : shares) reactors.emplace_back(reactor, share, std::ref(shared));

    std::atomic<bool> sampling{daemon.pid().has_value()};
    long sampled_rss = 0;
    std::thread sampler([&] {
      while (sampling) {
        sampled_rss = std::max(sampled_rss, status_kb(*daemon.pid(), "VmRSS"));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
    auto finish = [&] {
      shared.stop = true;
      for (auto& t : reactors) t.join();
      sampling = false;
      sampler.join();
    };

    // The gate: every subscriber live, then the script goes on.
    const auto gate_deadline = Clock::now() + std::chrono::seconds(60);
    const std::string approval = wait_for_approval(daemon.client(), run_id, gate_deadline);
    while (shared.ready.load() < c.subscribers && Clock::now() < gate_deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (approval.empty() || shared.ready.load() < c.subscribers) {
      finish();
      return state.SkipWithError("the subscribers did not all see the approval request within 60 s");
    }
    shared.gate_open = true;
    const double daemon_cpu0 = daemon.process() ? cpu_us(daemon.process()->pid()) : 0;
    const WriterSample writer0 = writer_sample(daemon);
    const auto t0 = Clock::now();
    shared.last_progress_ns = mono_ns(t0);
    auto answered = daemon.client().post_json("/api/runs/" + run_id + "/approvals/" + approval,
                                              json::object{{"decision", "approve"}});
    if (answered.status != 200) {
      finish();
      return state.SkipWithError(answered.body.c_str());
    }
    // Until every stream ended at run.finished (or closed), or nothing arrived for 30 s.
    while (shared.done.load() < c.subscribers &&
           mono_ns(Clock::now()) - shared.last_progress_ns.load() < std::chrono::nanoseconds(std::chrono::seconds(30)).count())
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    // A little longer, to catch deltas sent after run.finished.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    finish();
    auto* local = daemon.process();
    const long hwm = local ? status_kb(local->pid(), "VmHWM") : 0;
    const double daemon_cpu = local ? cpu_us(local->pid()) - daemon_cpu0 : 0;
    const WriterSample writer1 = writer_sample(daemon);
    if (local && !local->running()) {
      const std::string log = local->stderr_text();
      const std::string why = "the daemon exited (code " + std::to_string(local->exit_code().value_or(-1)) +
                              "): " + log.substr(log.size() > 2000 ? log.size() - 2000 : 0);
      return state.SkipWithError(why.c_str());
    }

    int complete = 0;
    double rate_sum = 0, envelopes = 0, conflated = 0, violations = 0, bytes = 0, received = 0;
    Clock::time_point last_finish = t0;
    std::vector<std::int64_t> latencies;
    std::string first_failure;
    for (auto& s : subs) {
      if (!s->finished) s->checker.fail("no run.finished within 30 s of the last byte received");
      // Every script message ends with message.completed: deltas without one mean it was lost.
      for (const auto& [key, item] : s->checker.items())
        if (item.deltas > 0 && !item.completed)
          s->checker.fail(std::to_string(item.deltas) + " deltas of " + key + " and no message.completed");
      if (s->checker.violations() == 0) ++complete;
      else if (first_failure.empty()) first_failure = s->checker.violation_messages().front();
      violations += static_cast<double>(s->checker.violations());
      envelopes += static_cast<double>(s->envelopes);
      bytes += static_cast<double>(s->stream.bytes_received());
      received += static_cast<double>(s->received);
      conflated += static_cast<double>(s->checker.conflated());
      if (s->finished) {
        last_finish = std::max(last_finish, s->finished_at);
        rate_sum += static_cast<double>(events) / std::chrono::duration<double>(s->finished_at - t0).count();
      }
      latencies.insert(latencies.end(), s->latencies_ns.begin(), s->latencies_ns.end());
    }
    const double wall = std::chrono::duration<double>(last_finish - t0).count();
    state.SetIterationTime(wall > 0 ? wall : 1e-9);
    std::sort(latencies.begin(), latencies.end());
    auto percentile = [&](double p) {
      return latencies.empty() ? 0.0
                               : static_cast<double>(latencies[static_cast<std::size_t>(p * static_cast<double>(latencies.size() - 1))]) / 1000.0;
    };
    const double n = c.subscribers;
    state.counters["events"] = static_cast<double>(events);
    state.counters["subs"] = n;
    state.counters["complete"] = complete;
    state.counters["violations"] = violations;
    state.counters["events_per_s"] = rate_sum / n;
    state.counters["deliveries_per_s"] = wall > 0 ? envelopes / wall : 0;
    state.counters["env_per_sub"] = envelopes / n;
    state.counters["conflated"] = conflated;
    state.counters["bytes_per_env"] = received > 0 ? bytes / received : 0;
    if (c.rate_hz > 0) {
      state.counters["p50_us"] = percentile(0.50);
      state.counters["p99_us"] = percentile(0.99);
    }
    if (local) state.counters["rss_mb"] = static_cast<double>(hwm > 0 ? hwm : sampled_rss) / 1024.0;
    if (local && envelopes > 0) state.counters["daemon_ns_per_env"] = daemon_cpu * 1000.0 / envelopes;
    if (writer1.events > writer0.events)
      state.counters["writer_ns_per_event"] = (writer1.cpu_s - writer0.cpu_s) * 1e9 / (writer1.events - writer0.events);
    if (writer1.commits > writer0.commits)
      state.counters["events_per_commit"] = (writer1.events - writer0.events) / (writer1.commits - writer0.commits);
    if (first_failure.empty()) {
      state.SetLabel("ok");
    } else {
      state.SetLabel("FAIL " + std::to_string(complete) + "/" + std::to_string(c.subscribers) + " ok: " + first_failure);
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(), first_failure.c_str());
      // What the daemon said last (why it closed streams, if it said).
      const std::string log = local ? local->stderr_text() : std::string();
      auto from = log.size();
      for (int lines = 0; lines < 4 && from > 0; ++lines) from = log.rfind('\n', from - 2) == std::string::npos ? 0 : log.rfind('\n', from - 2) + 1;
      if (from < log.size()) std::fprintf(stderr, "  daemon stderr, last lines:\n%s", log.substr(from).c_str());
    }
  }
  if (auto* local = daemon.process()) local->stop();
}

bool register_cases() {
  struct Named {
    const char* group;
    Case c;
  };
  std::vector<Named> cases;
  for (auto t : {StreamTransport::sse, StreamTransport::ws}) {
    for (int subs : {1, 100}) cases.push_back({"durable", {t, Kind::notice, subs, 0, 200'000, {}}});
    for (int subs : {1, 100}) cases.push_back({"deltas", {t, Kind::delta, subs, 0, 100'000, {}}});
    // What a daemon holds for a few viewers of a long message (its peak RSS).
    if (t == StreamTransport::sse) cases.push_back({"deltas", {t, Kind::delta, 5, 0, 100'000, {}}});
    for (auto kind : {Kind::notice, Kind::delta}) {
      cases.push_back({"latency", {t, kind, 1, 1000, 3000, {}}});
      cases.push_back({"latency", {t, kind, 1, 50000, 100'000, {}}});
      cases.push_back({"latency", {t, kind, 100, 1000, 3000, {}}});
    }
  }
  for (auto& [group, c] : cases) {
    std::string name = std::string("BM_Stream/") + group + "/" + (c.transport == StreamTransport::sse ? "sse" : "ws");
    if (std::string(group) == "latency") name += c.kind == Kind::delta ? "/delta" : "/notice";
    name += "/subs:" + std::to_string(c.subscribers) + "/rate_hz:" + std::to_string(c.rate_hz);
    c.name = name;
    benchmark::RegisterBenchmark(name.c_str(), BM_Stream, c)
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}

[[maybe_unused]] const bool registered = register_cases();

}  // namespace
}  // namespace agentry::bench
