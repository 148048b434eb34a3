#pragma once
// The delivery worker of the notification outbox (store/notification_repository.hpp).
// Only the serving daemon runs one: embedded CLI processes queue rows and leave them.
//
// A poll thread looks for due rows (at start, every `poll` interval, and at once when
// woken or when a delivery finishes) and hands each to a small worker pool of its own;
// a worker makes one attempt (notify/webhook.hpp or notify/command.hpp, each with its
// deadline), then records it through the write queue: attempts, state, the next due
// time (notify/retry_policy.hpp), and, when the row is settled, an audit record
// (notification.delivered / notification.failed). Nothing here runs on the engine's,
// the writer's or the HTTP server's threads, and nothing there waits on it.
//
// A row is sent again only if the daemon died between sending it and recording the
// answer: delivery is at least once, and every attempt carries the same idempotency key.

#include "core/executor.hpp"
#include "core/metrics.hpp"
#include "core/settings.hpp"
#include "events/event_bus.hpp"
#include "notify/command.hpp"
#include "notify/retry_policy.hpp"
#include "notify/webhook.hpp"
#include "store/store.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace agentry::notify {

struct NotifierOptions {
  std::chrono::milliseconds poll{1000};
  RetryPolicy retry;
  WebhookLimits webhook;
  CommandLimits command;
  std::size_t workers = 2;  // deliveries in flight at once
  std::string user_agent = "agentry";

  /// AGENTRY_NOTIFY_POLL_MS, AGENTRY_NOTIFY_BACKOFF_MS ("1000,5000") and
  /// AGENTRY_NOTIFY_TIMEOUT_MS (webhook total and command timeout), as parsed at start.
  static NotifierOptions from_settings(const core::Settings& settings);
};

class Notifier {
 public:
  Notifier(store::Store& db, events::EventBus& bus, NotifierOptions options);
  /// stop()
  ~Notifier();
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;

  void start();
  /// Look for due rows now (cheap; any thread).
  void wake();
  /// Stops polling and waits for the attempts in flight (each bounded by its deadline).
  void stop();

 private:
  void poll_loop();
  void deliver(store::OutboxEntry entry);
  AttemptOutcome attempt(const store::OutboxEntry& entry);
  /// Takes the entry for one attempt by this daemon; false when another has it.
  bool claim(const store::OutboxEntry& entry);
  void record(const store::OutboxEntry& entry, const AttemptOutcome& outcome);

  store::Store& db_;
  events::EventBus& bus_;
  NotifierOptions options_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool woken_ = false;
  bool stopping_ = false;
  std::set<std::int64_t> in_flight_;
  std::thread poller_;
  core::metrics::CollectorHandle backlog_metric_;
  std::unique_ptr<core::ThreadPool> workers_;
};

}  // namespace agentry::notify
