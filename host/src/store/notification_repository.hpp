#pragma once
// The notification outbox (migration 5): one row per (event, target) a run must tell
// someone about, written in the transaction that made the event happen, and the
// delivery state the notifier (notify/) records after each attempt.

#include "store/sqlite.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store {

struct OutboxEntry {
  std::int64_t id = 0;
  std::string run_id;
  std::string event;            // "run.finished", "run.needs_user"
  std::string idempotency_key;  // stable per (run, event occurrence); the same for every attempt
  int target_index = 0;         // the target's position in the run's frozen notify list
  std::string target_json;      // the target as frozen (may hold a secret: never shown)
  std::string payload_json;     // the exact body every attempt sends
  /// held | pending | delivered | failed. `held`: a run.finished whose afterExit hooks
  /// have not run yet; never due until released (engine/after_exit.hpp).
  std::string state = "pending";
  int attempts = 0;
  std::int64_t next_attempt_ms = 0;  // unix ms; due when <= now
  std::string last_error;
  std::string created_at;
  std::string updated_at;
  std::optional<std::string> delivered_at;
};

class NotificationRepository {
 public:
  /// Queues one delivery; false when (idempotency_key, target_index) was queued already.
  static bool insert(Connection& c, const OutboxEntry& entry);
  /// Pending rows due at `now_ms`, oldest first, at most `limit`.
  static std::vector<OutboxEntry> due(Connection& c, std::int64_t now_ms, int limit);
  /// The earliest next_attempt_ms of a pending row, if any.
  static std::optional<std::int64_t> next_due(Connection& c);
  static std::optional<OutboxEntry> get(Connection& c, std::int64_t id);
  /// Every row of a run, in the order they were queued.
  static std::vector<OutboxEntry> list_for_run(Connection& c, std::string_view run_id);
  /// Writes state, attempts, next_attempt_ms, last_error, updated_at and delivered_at.
  static void update(Connection& c, const OutboxEntry& entry);
  /// A held row becomes pending, due at `due_ms`, with `payload_json` as its body.
  static void release(Connection& c, std::int64_t id, const std::string& payload_json, std::int64_t due_ms);
  /// Startup: every held row becomes pending as it is (the process that held it is gone
  /// and its hooks will not run). Returns how many.
  static int release_all_held(Connection& c, std::int64_t due_ms);
};

}  // namespace agentry::store
