// Timeline streams deliver a run's events in the order they were emitted, and a slow
// subscriber is never dropped for being slow: its deltas are merged ("conflated": true)
// so it still ends with every message's exact text. Only a stalled socket is closed, and
// the client resumes by cursor with nothing durable lost. Over SSE and WebSocket.
#include "daemon_fixture.hpp"
#include "support/timeline_stream.hpp"

#include <atomic>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
using test::Clock;
using test::StreamTransport;
using namespace std::chrono_literals;

/// "event 1event 2...event n": what the mock's n deltas join to.
std::string expected_text(int n) {
  std::string text;
  for (int i = 1; i <= n; ++i) text += "event " + std::to_string(i);
  return text;
}

/// The envelope's fields, read with a full JSON parser (the benchmark uses the scanner).
test::Envelope envelope_of(const json::object& o) {
  test::Envelope e;
  e.kind = std::string(o.at("kind").as_string());
  if (const auto& c = o.at("cursor"); !c.is_null()) e.cursor = c.to_number<std::int64_t>();
  if (const auto* a = o.if_contains("attemptNumber"); a && !a->is_null()) e.attempt = a->to_number<std::int64_t>();
  if (const auto* f = o.if_contains("ephemeral")) e.ephemeral = f->is_bool() && f->as_bool();
  if (const auto* f = o.if_contains("conflated")) e.conflated = f->is_bool() && f->as_bool();
  if (const auto* p = o.if_contains("payload"); p && p->is_object()) {
    const auto& payload = p->as_object();
    if (const auto* t = payload.if_contains("text"); t && t->is_string()) {
      e.text = std::string(t->as_string());
      e.has_text = true;
    }
    if (const auto* i = payload.if_contains("itemId"); i && i->is_string()) e.item = std::string(i->as_string());
    else if (const auto* t = payload.if_contains("toolCallId"); t && t->is_string()) e.item = std::string(t->as_string());
  }
  return e;
}

/// One subscriber: its connection and the contract checks of what it received.
struct Subscriber {
  Subscriber(test::TimelineStreamOptions options, std::int64_t after = 0)
      : stream(starting_after(std::move(options), after)), checker(after) {}

  static test::TimelineStreamOptions starting_after(test::TimelineStreamOptions options, std::int64_t after) {
    options.after = after;
    return options;
  }

  test::TimelineStream stream;
  test::TimelineChecker checker;
  std::size_t envelopes = 0;
  std::vector<std::int64_t> cursors;
  Clock::time_point last_envelope_at{};  // a reader that stalls, not one that is slow, stops early

  void open() {
    stream.open();
    stream.drain_buffered(handler());
  }

  test::TimelineStream::Handler handler() {
    return [this](std::string_view text, std::optional<std::int64_t> framed) {
      ++envelopes;
      last_envelope_at = Clock::now();
      json::value parsed;
      try {
        parsed = json::parse(text);
      } catch (const std::exception& e) {
        return checker.fail("not JSON (" + std::string(e.what()) + "): " + std::string(text.substr(0, 200)));
      }
      if (!parsed.is_object()) return checker.fail("not an object: " + std::string(text.substr(0, 200)));
      auto e = envelope_of(parsed.as_object());
      if (framed != e.cursor)
        checker.fail("framed with cursor " + (framed ? std::to_string(*framed) : std::string("none")) +
                     " around an envelope with cursor " + (e.cursor ? std::to_string(*e.cursor) : std::string("null")));
      if (!e.cursor && !e.ephemeral) checker.fail("a " + e.kind + " without a cursor is not marked ephemeral");
      if (e.cursor) cursors.push_back(*e.cursor);
      checker.on_envelope(e);
    };
  }

  bool saw_durable(std::string_view kind) const {
    const auto& kinds = checker.durable_kinds();
    return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
  }

  /// Reads until `done()` holds, the stream ends, or `deadline`. A slow reader takes at
  /// most `max_bytes` per read and sleeps `pause` before each.
  bool read_until(const std::function<bool()>& done, Clock::time_point deadline, std::size_t max_bytes = 0,
                  std::chrono::microseconds pause = {}) {
    auto h = handler();
    while (!done() && !stream.ended()) {
      if (Clock::now() >= deadline) return false;
      if (pause.count() > 0) std::this_thread::sleep_for(pause);
      if (!stream.wait_readable(std::min(deadline, Clock::now() + 100ms))) continue;
      stream.read_some(h, max_bytes);
    }
    return done();
  }

  /// Reads through run.finished, then `grace` longer: a delta sent after run.finished
  /// would arrive right behind it.
  void read_to_finish(Clock::time_point deadline, std::size_t max_bytes = 0, std::chrono::microseconds pause = {},
                      std::chrono::milliseconds grace = 300ms) {
    read_until([this] { return checker.finished(); }, deadline, max_bytes, pause);
    if (!checker.finished()) {
      // Where the stream stood says whether the daemon stopped sending or the run stopped.
      const std::string quiet =
          envelopes ? std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - last_envelope_at)
                                         .count()) + " ms"
                    : std::string("the whole read");
      const auto& kinds = checker.durable_kinds();
      checker.fail((stream.ended() ? "the daemon closed the stream before run.finished: " + stream.end_reason()
                                   : std::string("no run.finished before the deadline")) +
                   " (" + std::to_string(envelopes) + " envelopes, " + std::to_string(checker.deltas()) + " deltas, " +
                   std::to_string(checker.conflated()) + " conflated, last cursor " +
                   std::to_string(checker.last_cursor()) + ", last durable " + (kinds.empty() ? "none" : kinds.back()) +
                   ", nothing for " + quiet + ")");
      return;
    }
    const auto until = Clock::now() + grace;
    auto h = handler();
    while (!stream.ended() && Clock::now() < until)
      if (stream.wait_readable(until)) stream.read_some(h, max_bytes);
  }

  /// The one item that had deltas.
  const test::TimelineChecker::Item* streamed_item() const {
    for (const auto& [key, item] : checker.items())
      if (item.deltas > 0) return &item;
    return nullptr;
  }

  std::string violations() const {
    std::string out;
    for (const auto& m : checker.violation_messages()) out += "\n  " + m;
    return std::to_string(checker.violations()) + " contract breaches" + out;
  }
};

class StreamOrderTest : public DaemonTest {
 protected:
  test::TimelineStreamOptions options(StreamTransport transport) const {
    test::TimelineStreamOptions o;
    o.transport = transport;
    o.port = daemon_->port();
    return o;
  }

  /// An agent that asks before it emits `step` (a YAML flow map), so that subscribers can
  /// connect and be live first: the approval is the gate.
  std::string start_gated_run(const std::string& step) {
    write_agent("streamer", "mock", "{steps: [{ask: {summary: 'start streaming', kind: command}}, " + step + "]}");
    return start_agent_run("streamer");
  }

  std::string wait_for_approval(const std::string& run) {
    const auto deadline = Clock::now() + 30s;
    while (Clock::now() < deadline) {
      const auto detail = get_run(run);
      const auto& pending = detail.at("pendingApprovals").as_array();
      if (!pending.empty()) return std::string(pending.at(0).at("approvalId").as_string());
      std::this_thread::sleep_for(20ms);
    }
    ADD_FAILURE() << "the run never asked for an approval";
    return {};
  }

  /// Opens a subscriber and reads until it has seen the approval request: it is live.
  std::unique_ptr<Subscriber> live_subscriber(const std::string& run, StreamTransport transport, int rcvbuf = 0) {
    auto o = options(transport);
    o.run_id = run;
    o.rcvbuf = rcvbuf;
    auto sub = std::make_unique<Subscriber>(o);
    sub->open();
    EXPECT_TRUE(sub->read_until([&] { return sub->saw_durable("approval.request"); }, Clock::now() + 30s))
        << "no approval.request on the stream: " << sub->stream.end_reason() << " " << sub->violations();
    return sub;
  }

  void approve(const std::string& run, const std::string& approval) {
    auto answered = client().post_json("/api/runs/" + run + "/approvals/" + approval, json::object{{"decision", "approve"}});
    ASSERT_EQ(answered.status, 200) << answered.body;
  }

  /// Every durable kind of the run's history, in cursor order.
  std::vector<std::string> history_kinds(const std::string& run) {
    std::vector<std::string> kinds;
    for (const auto& e : timeline(run)) kinds.emplace_back(e.at("kind").as_string());
    return kinds;
  }

  /// The checks every complete stream of a gated delta run must pass.
  void expect_whole_and_in_order(const Subscriber& sub, int deltas, const char* who) {
    EXPECT_EQ(sub.checker.violations(), 0u) << who << ": " << sub.violations();
    ASSERT_TRUE(sub.checker.finished()) << who << " never saw run.finished; the run is "
                                        << run_status(sub.stream.run_id()) << ", its history ends at "
                                        << history_kinds(sub.stream.run_id()).size() << " durable events";
    const auto* item = sub.streamed_item();
    ASSERT_NE(item, nullptr) << who << " received no delta";
    EXPECT_TRUE(item->completed) << who << " never saw the item's message.completed";
    EXPECT_EQ(item->joined.size(), expected_text(deltas).size()) << who;
    EXPECT_TRUE(item->joined == expected_text(deltas)) << who << ": the joined deltas are not the whole text";
    EXPECT_TRUE(item->completed_text == expected_text(deltas)) << who << ": message.completed is not the whole text";
    const auto& kinds = sub.checker.durable_kinds();
    ASSERT_FALSE(kinds.empty());
    EXPECT_EQ(kinds.back(), "run.finished") << who;
  }
};

// (a), and (e) for WebSocket: a fast run read by one SSE and one WS subscriber.
TEST_F(StreamOrderTest, DeltasArriveBeforeTheirCompletionAndNoneAfterRunFinished) {
  constexpr int deltas = 5000;
  auto run = start_gated_run("{events: " + std::to_string(deltas) + ", kind: delta, complete: true}");
  auto approval = wait_for_approval(run);
  auto sse = live_subscriber(run, StreamTransport::sse);
  auto ws = live_subscriber(run, StreamTransport::ws);
  approve(run, approval);
  const auto deadline = Clock::now() + 30s;
  std::thread reader([&] { ws->read_to_finish(deadline); });
  sse->read_to_finish(deadline);
  reader.join();
  expect_whole_and_in_order(*sse, deltas, "the SSE subscriber");
  expect_whole_and_in_order(*ws, deltas, "the WebSocket subscriber");
  // Both saw the durable timeline the history route has, in its order.
  EXPECT_EQ(wait_until_settled(run), "success");
  const auto history = history_kinds(run);
  EXPECT_EQ(sse->checker.durable_kinds(), history);
  EXPECT_EQ(ws->checker.durable_kinds(), history);
}

// (b): a reader with a tiny receive buffer that sleeps between small reads, while 30,000
// deltas go out flat out. It falls behind; it is not closed; its deltas are merged.
TEST_F(StreamOrderTest, SlowSseSubscriberIsConflatedNotClosed) {
  constexpr int deltas = 30000;
  auto run = start_gated_run("{events: " + std::to_string(deltas) + ", kind: delta, complete: true}");
  auto approval = wait_for_approval(run);
  auto slow = live_subscriber(run, StreamTransport::sse, /*rcvbuf=*/4096);
  approve(run, approval);
  slow->read_to_finish(Clock::now() + 60s, /*max_bytes=*/1024, /*pause=*/1ms);
  EXPECT_FALSE(slow->stream.ended()) << "the slow subscriber was closed: " << slow->stream.end_reason();
  expect_whole_and_in_order(*slow, deltas, "the slow SSE subscriber");
  EXPECT_GT(slow->checker.conflated(), 0u) << "no delta was marked conflated although the subscriber fell behind ("
                                           << slow->checker.deltas() << " deltas received)";
  EXPECT_LT(slow->checker.deltas(), static_cast<std::size_t>(deltas));
}

// (e): the same over a WebSocket events.subscribe.
TEST_F(StreamOrderTest, SlowWebSocketSubscriberIsConflatedNotClosed) {
  constexpr int deltas = 30000;
  auto run = start_gated_run("{events: " + std::to_string(deltas) + ", kind: delta, complete: true}");
  auto approval = wait_for_approval(run);
  auto slow = live_subscriber(run, StreamTransport::ws, /*rcvbuf=*/4096);
  approve(run, approval);
  slow->read_to_finish(Clock::now() + 60s, /*max_bytes=*/1024, /*pause=*/1ms);
  EXPECT_FALSE(slow->stream.ended()) << "the slow subscriber was closed: " << slow->stream.end_reason();
  expect_whole_and_in_order(*slow, deltas, "the slow WebSocket subscriber");
  EXPECT_GT(slow->checker.conflated(), 0u) << "no delta was marked conflated although the subscriber fell behind ("
                                           << slow->checker.deltas() << " deltas received)";
  EXPECT_LT(slow->checker.deltas(), static_cast<std::size_t>(deltas));
}

// (c): a subscriber that stops reading is closed once a write to it stalls for
// AGENTRY_HTTP_WRITE_TIMEOUT_MS; it reconnects with Last-Event-ID and gets every durable
// event after its cursor, with no gap, through run.finished.
TEST_F(StreamOrderTest, StalledSseSubscriberIsClosedAndResumesByCursor) {
  start_daemon({{"AGENTRY_HTTP_WRITE_TIMEOUT_MS", "300"}});
  // ~40,000 notices are several MB: far more than the socket buffers of a reader that
  // does not read, so the daemon's writes to it must stall.
  constexpr int deltas = 1000;
  auto run = start_gated_run("{events: 40000, kind: notice}, {events: " + std::to_string(deltas) +
                             ", kind: delta, complete: true}");
  auto approval = wait_for_approval(run);
  auto stalled = live_subscriber(run, StreamTransport::sse, /*rcvbuf=*/4096);
  approve(run, approval);
  // Not reading at all until the run is over, and then long past the write timeout.
  EXPECT_EQ(wait_until_settled(run, 60s), "success");
  std::this_thread::sleep_for(2s);
  // What the daemon had written before it gave up is still in the socket, then the end.
  stalled->read_until([&] { return stalled->checker.finished(); }, Clock::now() + 30s);
  ASSERT_TRUE(stalled->stream.ended()) << "the stalled stream was not closed";
  EXPECT_FALSE(stalled->checker.finished()) << "the stalled subscriber was not closed: it got the whole run";
  EXPECT_EQ(stalled->checker.violations(), 0u) << stalled->violations();
  const auto last = stalled->checker.last_cursor();
  ASSERT_GT(last, 0);

  auto o = options(StreamTransport::sse);
  o.run_id = run;
  Subscriber resumed(o, last);  // Last-Event-ID: <last>
  resumed.open();
  resumed.read_to_finish(Clock::now() + 30s);
  EXPECT_EQ(resumed.checker.violations(), 0u) << resumed.violations();
  ASSERT_FALSE(resumed.cursors.empty());
  EXPECT_EQ(resumed.cursors.front(), last + 1);
  // Together the two connections saw the whole durable timeline, once each.
  auto seen = stalled->cursors;
  seen.insert(seen.end(), resumed.cursors.begin(), resumed.cursors.end());
  const auto history = timeline(run);
  ASSERT_EQ(seen.size(), history.size());
  for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], history[i].at("cursor").as_int64()) << "at " << i;
  // Nothing durable lost: the message the deltas made is there whole.
  bool found = false;
  for (const auto& e : history)
    if (e.at("kind") == "message.completed" && e.at("payload").at("text") == json::value(expected_text(deltas))) found = true;
  EXPECT_TRUE(found) << "no message.completed with the deltas' whole text";
}

/// One gauge's value from the daemon's /metrics (-1: not there).
double gauge(test::HttpClient client, std::string_view name) {
  const auto body = client.get("/metrics").body;
  const std::string line_start = "\n" + std::string(name) + " ";
  const auto at = body.find(line_start);
  return at == std::string::npos ? -1 : std::stod(body.substr(at + line_start.size()));
}

// WebSocket connections count what they have ready to send in the daemon's stream
// memory, in a share of half of it: twelve WebSocket readers (and four SSE ones, which
// are not counted) that stop reading during a flood of notices hold about that much
// together, not 256 frames of outbox and 64 KiB of write-ahead each; once they read again
// each gets the whole run, and what they held is given back when they close.
TEST_F(StreamOrderTest, StalledReadersHoldOnlyTheConnectionsShareOfStreamMemory) {
  constexpr std::size_t limit = 1 << 20;
  start_daemon({{"AGENTRY_STREAM_MEMORY_BYTES", std::to_string(limit)}});
  // 10,000 notices are about 2 MB per reader: far more than its socket buffers, outbox
  // and write-ahead hold, so every stalled connection fills what it may.
  auto run = start_gated_run("{events: 10000, kind: notice}");
  auto approval = wait_for_approval(run);
  std::vector<std::unique_ptr<Subscriber>> readers;
  for (int i = 0; i < 16; ++i)
    readers.push_back(live_subscriber(run, i % 4 == 3 ? StreamTransport::sse : StreamTransport::ws, /*rcvbuf=*/4096));
  ASSERT_EQ(gauge(client(), "agentry_stream_memory_limit_bytes"), static_cast<double>(limit));

  std::atomic<bool> sampling{true};
  double peak_unsent = 0;
  std::thread sampler([&] {
    while (sampling) {
      peak_unsent = std::max(peak_unsent, gauge(client(), "agentry_stream_memory_unsent_bytes"));
      std::this_thread::sleep_for(5ms);
    }
  });
  approve(run, approval);
  const auto settled = wait_until_settled(run, 60s);
  std::this_thread::sleep_for(500ms);  // the streams take what the last events made ready
  sampling = false;
  sampler.join();
  ASSERT_EQ(settled, "success");
  // Half the limit is the share: the stalled connections reach it, or this proves nothing.
  EXPECT_GT(peak_unsent, static_cast<double>(limit) / 4) << "the stalled connections' bytes were not counted";
  // The share is half the limit; a lean batch and 8 KiB of write-ahead per reader may
  // pass it, never a full outbox and write-ahead each (over 1.5 MB for these twelve).
  EXPECT_LE(peak_unsent, static_cast<double>(limit));

  std::vector<std::thread> reading;
  const auto deadline = Clock::now() + 120s;
  for (auto& reader : readers) reading.emplace_back([&reader, deadline] { reader->read_to_finish(deadline); });
  for (auto& t : reading) t.join();
  const auto history = timeline(run);
  for (std::size_t i = 0; i < readers.size(); ++i) {
    const auto& reader = *readers[i];
    const auto idle = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - reader.last_envelope_at);
    const std::string who = "reader " + std::to_string(i) + " (" + std::to_string(reader.cursors.size()) + " of " +
                            std::to_string(history.size()) + " events, the last " + std::to_string(idle.count()) +
                            " ms ago)";
    EXPECT_EQ(reader.checker.violations(), 0u) << who << ": " << reader.violations();
    EXPECT_TRUE(reader.checker.finished()) << who << " never saw run.finished";
    EXPECT_EQ(reader.cursors.size(), history.size()) << who;
    if (!reader.cursors.empty()) {
      EXPECT_EQ(reader.cursors.back(), history.back().at("cursor").as_int64()) << who;
    }
  }
  readers.clear();
  double unsent = -1;
  for (int i = 0; i < 250 && unsent != 0; ++i) {
    unsent = gauge(client(), "agentry_stream_memory_unsent_bytes");
    if (unsent != 0) std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(unsent, 0) << "connections that are gone still hold stream memory";
}

// (d): a subscriber that comes after the run finished gets the whole durable timeline,
// in order, from the store, and no ephemeral deltas (they are never stored).
TEST_F(StreamOrderTest, LateSubscriberGetsTheWholeDurableTimelineInOrder) {
  write_agent("finished", "mock",
              "{steps: [{events: 300, kind: notice}, {events: 2000, kind: delta, complete: true}, {say: done, deltas: 3}]}");
  auto run = start_agent_run("finished");
  ASSERT_EQ(wait_until_settled(run), "success");
  // The run reads as finished once run.finished commits; its live window, deltas and all,
  // goes a moment later, when the store's writer hands run.finished to the feed. One who
  // subscribes in between is a live subscriber, so wait for the window to go.
  double feeds = -1;
  for (const auto deadline = Clock::now() + 10s; Clock::now() < deadline && feeds != 0; std::this_thread::sleep_for(10ms))
    feeds = gauge(client(), "agentry_stream_timeline_feeds");
  ASSERT_EQ(feeds, 0) << "the finished run's live window was never let go";
  const auto history = history_kinds(run);
  for (auto transport : {StreamTransport::sse, StreamTransport::ws}) {
    const char* who = transport == StreamTransport::sse ? "SSE" : "WebSocket";
    auto o = options(transport);
    o.run_id = run;
    Subscriber late(o, 0);
    late.open();
    late.read_to_finish(Clock::now() + 30s);
    EXPECT_EQ(late.checker.violations(), 0u) << who << ": " << late.violations();
    EXPECT_EQ(late.checker.durable_kinds(), history) << who;
    EXPECT_EQ(late.checker.deltas(), 0u) << who << ": deltas of a finished run were replayed";
    ASSERT_FALSE(late.cursors.empty()) << who;
    EXPECT_EQ(late.cursors.front(), 1) << who;
    EXPECT_EQ(late.cursors.back(), static_cast<std::int64_t>(history.size())) << who;
  }
}

}  // namespace
}  // namespace agentry::integration
