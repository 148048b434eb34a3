// A run's timeline stream as a client sees it, for the stream-order tests and the stream
// delivery benchmark: a non-blocking connection (SSE or WebSocket `events.subscribe`)
// that hands over each envelope's JSON as bytes arrive, a cheap scanner that reads the
// few envelope fields the checks need without building a DOM, and a checker of the
// delivery contract (docs/api.md, Streams):
//   - durable envelopes arrive with strictly increasing cursors and no gap;
//   - a delta (ephemeral, cursor null) is never delivered after a durable event emitted
//     after it: its item's completion (message.completed for message.delta), its
//     attempt's attempt.finished, or run.finished;
//   - the deltas of an item, joined, are exactly the text of its message.completed.
#pragma once

#include "support/http_wire.hpp"
#include "support/socket_io.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::test {

/// The fields of one timeline envelope the checks use.
struct Envelope {
  std::string kind;
  std::optional<std::int64_t> cursor;  // null for ephemeral events
  std::int64_t attempt = 0;            // attemptNumber (0 when absent or null)
  std::string item;                    // payload.itemId, else payload.toolCallId ("" if neither)
  std::string text;                    // payload.text, unescaped
  bool has_text = false;
  bool ephemeral = false;
  bool conflated = false;
  std::optional<std::int64_t> emitted_at_ns;  // payload.emittedAtNs (the mock's timestamps)
};

/// Reads `json` (one envelope object) into `out`. False when it is not a well-formed
/// JSON object (then `error`, if given, says where). Unknown members are skipped.
bool scan_envelope(std::string_view json, Envelope& out, std::string* error = nullptr);

/// Calls `member(key, raw value)` for each member of the JSON object `json` (the key
/// unescaped, the value as its raw JSON text). False when `json` is not a well-formed object.
bool for_each_member(std::string_view json,
                     const std::function<void(std::string_view key, std::string_view value)>& member);
/// A raw JSON string token ("...") unescaped into `out`; false if malformed.
bool json_string_value(std::string_view raw, std::string& out);
/// A raw JSON integer; nullopt for null, floats or anything else.
std::optional<std::int64_t> json_int_value(std::string_view raw);

/// Checks one subscriber's envelopes, in the order received, against the contract above.
class TimelineChecker {
 public:
  /// `after`: the cursor the subscription started after; the first durable cursor must
  /// be after + 1. `keep_text`: keep each item's joined text and the durable kinds (else
  /// only the text's length and a hash, and no kinds: what a benchmark with many
  /// subscribers and many events can afford).
  explicit TimelineChecker(std::int64_t after = 0, bool keep_text = true)
      : last_cursor_(after), keep_text_(keep_text) {}

  void on_envelope(const Envelope& e);

  [[nodiscard]] bool finished() const { return finished_; }        // run.finished seen
  [[nodiscard]] std::int64_t last_cursor() const { return last_cursor_; }
  [[nodiscard]] std::size_t durable() const { return durable_; }
  [[nodiscard]] std::size_t deltas() const { return deltas_; }
  [[nodiscard]] std::size_t conflated() const { return conflated_; }
  /// Contract breaches, the first few described (the count is exact).
  [[nodiscard]] std::size_t violations() const { return violations_; }
  [[nodiscard]] const std::vector<std::string>& violation_messages() const { return messages_; }
  /// Items completed: key ("message.delta|<itemId>|<attempt>") -> {joined delta text, completed text}.
  struct Item {
    std::string joined;  // only with keep_text
    std::size_t joined_size = 0;
    std::uint64_t joined_hash = 0xcbf29ce484222325ULL;  // FNV-1a 64 of the joined text
    std::size_t deltas = 0;
    bool completed = false;
    std::string completed_text;
  };
  [[nodiscard]] const std::map<std::string, Item>& items() const { return items_; }
  /// Durable kinds in the order received (only with keep_text).
  [[nodiscard]] const std::vector<std::string>& durable_kinds() const { return kinds_; }
  /// Records a breach found by the caller (e.g. the stream closed early).
  void fail(std::string message);

 private:
  std::int64_t last_cursor_;
  bool keep_text_;
  bool finished_ = false;
  std::size_t durable_ = 0, deltas_ = 0, conflated_ = 0, violations_ = 0;
  std::vector<std::string> messages_;
  std::map<std::string, Item> items_;
  std::map<std::int64_t, bool> attempt_finished_;
  std::vector<std::string> kinds_;
};

enum class StreamTransport { sse, ws };

struct TimelineStreamOptions {
  StreamTransport transport = StreamTransport::sse;
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;  // the HTTP port (SSE) or the WebSocket port
  std::string run_id;
  std::int64_t after = 0;          // SSE: Last-Event-ID (when > 0); WS: events.subscribe `after`
  int rcvbuf = 0;                  // SO_RCVBUF set before connecting (0: the system's default)
  std::string bearer_token;        // sent as Authorization: Bearer when not empty
  std::chrono::milliseconds open_timeout{10'000};
};

/// One subscriber's connection. open() connects and subscribes (blocking, with a
/// deadline); then read_some() reads what the socket has and hands over envelopes.
class TimelineStream {
 public:
  /// envelope JSON (a timeline event object), and the cursor the transport framed it with
  /// (SSE `id:`, WS params.cursor; nullopt for none/null).
  using Handler = std::function<void(std::string_view json, std::optional<std::int64_t> framed_cursor)>;

  explicit TimelineStream(TimelineStreamOptions options);
  /// Throws std::runtime_error when the daemon refuses (status and body quoted).
  void open();

  [[nodiscard]] int fd() const { return fd_.get(); }
  [[nodiscard]] const std::string& run_id() const { return options_.run_id; }
  /// Reads once, at most `max_bytes` (0: until the socket has nothing more), without
  /// waiting; envelopes complete so far go to `handler`. Returns the bytes read.
  std::size_t read_some(const Handler& handler, std::size_t max_bytes = 0);
  /// Waits until the socket is readable or `deadline`; false on timeout.
  bool wait_readable(Clock::time_point deadline) const;
  /// Hands over envelopes already buffered (e.g. received with the response head).
  void drain_buffered(const Handler& handler);

  /// The server closed the stream (end of stream, a reset, a WS close frame or an
  /// `events.closed` notification).
  [[nodiscard]] bool ended() const { return ended_; }
  [[nodiscard]] const std::string& end_reason() const { return end_reason_; }
  [[nodiscard]] std::uint64_t bytes_received() const { return bytes_; }
  void close();

 private:
  void handle_sse(const Handler& handler);
  void handle_ws(const Handler& handler);
  void on_ws_message(std::string_view message, const Handler& handler);
  void send_ws_frame(std::uint8_t opcode, std::string_view payload);

  TimelineStreamOptions options_;
  UniqueFd fd_;
  BodyDecoder decoder_;
  std::string in_;        // bytes (SSE: decoded body) not yet consumed
  std::string fragments_;  // WS: a fragmented message so far
  std::string scratch_;   // SSE: multi-line data joined
  bool ended_ = false;
  std::string end_reason_;
  std::uint64_t bytes_ = 0;
  std::string subscription_id_;
};

}  // namespace agentry::test
