#pragma once
// The notification outbox (migration 5): one row per (event, target) a run must tell
// someone about, written in the transaction that made the event happen, and the
// delivery state the notifier (notify/) records after each attempt.


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
  /// have not run yet; never due until released (engine/hooks/after_exit.hpp).
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
  virtual ~NotificationRepository() = default;

  /// Queues one delivery; false when (idempotency_key, target_index) was queued already.
  virtual bool insert(const OutboxEntry& entry) = 0;
  /// Pending rows due at `now_ms`, oldest first, at most `limit`.
  virtual std::vector<OutboxEntry> due(std::int64_t now_ms, int limit) = 0;
  /// The earliest next_attempt_ms of a pending row, if any.
  virtual std::optional<std::int64_t> next_due() = 0;
  /// Deliveries not yet settled (pending, due or waiting for a retry).
  virtual std::int64_t pending_count() = 0;
  virtual std::optional<OutboxEntry> get(std::int64_t id) = 0;
  /// Every row of a run, in the order they were queued.
  virtual std::vector<OutboxEntry> list_for_run(std::string_view run_id) = 0;
  /// Writes state, attempts, next_attempt_ms, last_error, updated_at and delivered_at.
  virtual void update(const OutboxEntry& entry) = 0;
  /// A held row becomes pending, due at `due_ms`, with `payload_json` as its body.
  virtual void release(std::int64_t id, const std::string& payload_json, std::int64_t due_ms) = 0;
  /// Startup: every held row becomes pending as it is (the process that held it is gone
  /// and its hooks will not run). Returns how many.
  virtual int release_all_held(std::int64_t due_ms) = 0;
  /// Claims a due pending entry for one attempt: moves its next attempt to `until_ms`
  /// if it is still `read_next_ms`, in one statement, so that of the daemons that read
  /// it due one tries it (another may try it again once `until_ms` passes, if the first
  /// never recorded its attempt).
  virtual bool claim(std::int64_t id, std::int64_t read_next_ms, std::int64_t until_ms) = 0;
};

}  // namespace agentry::store
