#include "notify/notifier.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/metrics.hpp"
#include "core/notify_target.hpp"
#include "notify/signature.hpp"
#include "store/event_repository.hpp"
#include "store/notification_repository.hpp"
#include "store/store.hpp"

#include <boost/json/parse.hpp>

#include <cstdlib>

namespace agentry::notify {
namespace json = boost::json;

NotifierOptions NotifierOptions::from_settings(const core::Settings& settings) {
  NotifierOptions o;
  o.poll = settings.notify_poll;
  o.retry.backoff = settings.notify_backoff;
  o.webhook.total_timeout = settings.notify_timeout;
  o.webhook.connect_timeout = std::min(o.webhook.connect_timeout, o.webhook.total_timeout);
  o.command.timeout = settings.notify_timeout;
  return o;
}

Notifier::Notifier(store::Store& db, events::EventBus& bus, NotifierOptions options)
    : db_(db), bus_(bus), options_(std::move(options)) {}

Notifier::~Notifier() { stop(); }

void Notifier::start() {
  std::lock_guard lock(mutex_);
  if (poller_.joinable() || stopping_) return;
  workers_ = std::make_unique<core::ThreadPool>(std::max<std::size_t>(1, options_.workers));
  poller_ = std::thread([this] { poll_loop(); });
  backlog_metric_ = core::metrics::registry().add_collector([this] {
    auto pending = db_.read([](store::Transaction& c) -> core::Result<std::int64_t> { return c.outbox().pending_count(); });
    if (pending)
      core::metrics::registry()
          .gauge("agentry_notification_backlog", "Notifications waiting to be delivered (due or retrying).")
          .set(static_cast<double>(*pending));
  });
}

void Notifier::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  wake_.notify_all();
}

void Notifier::stop() {
  backlog_metric_.reset();  // the store may go before this notifier's destructor runs
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (poller_.joinable()) poller_.join();
  workers_.reset();  // runs what was handed over, then joins
}

void Notifier::poll_loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const std::size_t busy = in_flight_.size();
    const std::size_t free_slots = busy >= options_.workers ? 0 : options_.workers - busy;
    if (free_slots > 0) {
      lock.unlock();
      auto due = db_.read([&](store::Transaction& c) -> core::Result<std::vector<store::OutboxEntry>> {
        // A few extra: some of them may be in flight already.
        return c.outbox().due(core::now_ms(), static_cast<int>(free_slots + busy));
      });
      lock.lock();
      if (!due) {
        core::log_error("cannot read the notification outbox", {{"error", due.error().message}});
      } else {
        std::size_t handed = 0;
        for (auto& entry : *due) {
          if (stopping_ || handed >= free_slots) break;
          if (!in_flight_.insert(entry.id).second) continue;
          ++handed;
          workers_->post([this, e = std::move(entry)]() mutable { deliver(std::move(e)); });
        }
      }
    }
    wake_.wait_for(lock, options_.poll, [&] { return stopping_ || woken_; });
    woken_ = false;
  }
}

AttemptOutcome Notifier::attempt(const store::OutboxEntry& entry) {
  boost::system::error_code ec;
  auto target = core::notify_target_from_json(json::parse(entry.target_json, ec));
  if (ec || !target) return {false, true, "the stored target cannot be read"};
  const std::string attempt_number = std::to_string(entry.attempts + 1);
  if (target->kind == core::NotifyTarget::Kind::command) {
    CommandRequest rq;
    rq.argv = target->command;
    rq.stdin_data = entry.payload_json;
    rq.env = {{"AGENTRY_NOTIFY_EVENT", entry.event},
              {"AGENTRY_NOTIFY_IDEMPOTENCY_KEY", entry.idempotency_key},
              {"AGENTRY_NOTIFY_DELIVERY_ID", std::to_string(entry.id)},
              {"AGENTRY_NOTIFY_ATTEMPT", attempt_number},
              {"AGENTRY_RUN_ID", entry.run_id}};
    auto result = run_command(rq, options_.command);
    return {result.delivered, result.permanent, result.error};
  }
  std::string secret = target->secret;
  if (secret.empty() && !target->secret_env.empty()) {
    const char* value = std::getenv(target->secret_env.c_str());
    if (!value || !*value)
      return {false, true,
              "the signing secret's environment variable " + target->secret_env +
                  " is not set in the daemon's environment"};
    secret = value;
  }
  WebhookRequest rq;
  rq.url = target->url;
  rq.body = entry.payload_json;
  rq.headers = {{"User-Agent", options_.user_agent},
                {"X-Agentry-Event", entry.event},
                {"X-Agentry-Delivery", std::to_string(entry.id)},
                {"X-Agentry-Attempt", attempt_number},
                {"Idempotency-Key", entry.idempotency_key}};
  if (!secret.empty()) rq.headers.emplace_back("X-Agentry-Signature", signature_header(secret, rq.body));
  auto result = post_webhook(rq, options_.webhook);
  return {result.delivered, result.permanent, result.error};
}

void Notifier::deliver(store::OutboxEntry entry) {
  {
    // Stopping: a row not yet tried stays pending for the next daemon.
    std::lock_guard lock(mutex_);
    if (stopping_) {
      in_flight_.erase(entry.id);
      return;
    }
  }
  if (!claim(entry)) {
    std::lock_guard lock(mutex_);
    in_flight_.erase(entry.id);
    return;
  }
  AttemptOutcome outcome;
  try {
    outcome = attempt(entry);
  } catch (const std::exception& e) {
    outcome = {false, false, std::string("delivery failed: ") + e.what()};
  }
  record(entry, outcome);
  {
    std::lock_guard lock(mutex_);
    in_flight_.erase(entry.id);
    woken_ = true;
  }
  wake_.notify_all();
}

bool Notifier::claim(const store::OutboxEntry& entry) {
  // Past this attempt's own deadline: until then no other daemon of a shared store tries
  // the entry; after it, one may (this daemon died without recording the attempt).
  const auto deadline = std::max(options_.webhook.total_timeout, options_.command.timeout) + std::chrono::seconds(5);
  auto claimed = db_.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    return c.outbox().claim(entry.id, entry.next_attempt_ms, core::now_ms() + deadline.count());
  });
  if (!claimed) {
    core::log_error("cannot claim a notification", {{"deliveryId", std::to_string(entry.id)},
                                                    {"error", claimed.error().message}});
    return false;
  }
  return *claimed;
}

void Notifier::record(const store::OutboxEntry& sent, const AttemptOutcome& outcome) {
  auto settled = db_.write<std::optional<store::OutboxEntry>>(
      [&](store::Transaction& c) -> core::Result<std::optional<store::OutboxEntry>> {
        auto entry = c.outbox().get(sent.id);
        if (!entry || entry->state != "pending") return std::optional<store::OutboxEntry>{};  // run deleted
        apply_attempt(*entry, outcome, options_.retry, core::now_ms(), core::now_iso8601());
        c.outbox().update(*entry);
        if (entry->state != "pending") {
          boost::system::error_code ec;
          auto target = core::notify_target_from_json(json::parse(entry->target_json, ec));
          core::AuditEvent audit;
          audit.run_id = entry->run_id;
          audit.type = entry->state == "delivered" ? "notification.delivered" : "notification.failed";
          audit.actor = "daemon";
          audit.at = core::now_iso8601();
          audit.data = {{"deliveryId", entry->id},
                        {"event", entry->event},
                        {"target", !ec && target ? core::redacted_target(*target) : "unknown"},
                        {"idempotencyKey", entry->idempotency_key},
                        {"attempts", entry->attempts}};
          if (entry->state == "failed") audit.data["error"] = entry->last_error;
          c.audit().append(audit);
        }
        return entry;
      });
  if (!settled) {
    core::log_error("cannot record a notification attempt",
                    {{"deliveryId", std::to_string(sent.id)}, {"error", settled.error().message}});
    return;
  }
  if (!*settled) return;
  const auto& e = **settled;
  const char* result = e.state == "delivered" ? "delivered" : e.state == "failed" ? "failed" : "retry";
  core::metrics::registry()
      .counter("agentry_notification_attempts_total",
               "Notification delivery attempts, by result (failed: retries used up; retry: will be tried again).",
               {{"result", result}})
      .inc();
  if (e.state == "failed" || (e.state == "pending" && !outcome.delivered))
    core::log_warn("notification attempt failed", {{"runId", e.run_id},
                                                   {"deliveryId", std::to_string(e.id)},
                                                   {"event", e.event},
                                                   {"attempts", std::to_string(e.attempts)},
                                                   {"state", e.state},
                                                   {"error", e.last_error}});
  bus_.run_changed(e.run_id);
}

}  // namespace agentry::notify
