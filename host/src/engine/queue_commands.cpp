// Engine: queued resume messages. While a run is live, callers queue follow-ups; the
// session that ends next (other than by the user's abort) hands them, joined, to one
// new session (engine/queued_delivery.hpp), and startup recovery delivers those whose
// session ended while the daemon was going down.

#include "engine/engine.hpp"
#include "engine/mutate.hpp"

#include "core/clock.hpp"
#include "core/ids.hpp"
#include "core/log.hpp"
#include "engine/mutation_support.hpp"
#include "engine/queued_delivery.hpp"
#include "store/queued_message_repository.hpp"
#include "store/session_repository.hpp"
#include "store/store.hpp"

namespace agentry::engine {
using core::Operation;
namespace {

// Bounded like everything else: one message is at most 256 KiB (it becomes part of a
// prompt), and a run holds at most 64 of them and 1 MiB in all.
constexpr std::size_t max_message_bytes = 256 * 1024;
constexpr int max_queued_messages = 64;
constexpr std::int64_t max_queued_bytes = 1024 * 1024;

/// Whether the run's last session ended in a way that still owes the queue a delivery.
bool owes_delivery(store::Transaction& c, const core::Run& run) {
  if (run.session_count == 0) return false;
  auto session = c.sessions().get(run.id, run.session_count - 1);
  return session && session->ended_at && session->ended_by != "user";
}

}  // namespace

core::Result<core::QueuedMessage> Engine::queue_message(const std::string& run_id, const std::string& text,
                                                        const Actor& actor) {
  if (text.empty())
    return core::fail(core::ErrorCode::invalid_request, "text must not be empty", {{"field", "text"}});
  if (text.size() > max_message_bytes)
    return core::fail(core::ErrorCode::invalid_request,
                      "text is too long (" + std::to_string(text.size()) + " bytes; limit 256 KiB)",
                      {{"field", "text"}});
  return mutate<core::QueuedMessage>(run_id, [&](store::Transaction& c) -> core::Result<core::QueuedMessage> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto ok = detail::check_allowed(Operation::queue_message, *run, "queue a message for"); !ok)
      return ok.failure();
    auto totals = c.queued_messages().totals(run_id);
    if (totals.count >= max_queued_messages ||
        totals.bytes + static_cast<std::int64_t>(text.size()) > max_queued_bytes)
      return core::fail(core::ErrorCode::conflict,
                        "run " + run_id + " already has " + std::to_string(totals.count) +
                            " queued messages (limits: 64 messages, 1 MiB in all); remove some or wait for the "
                            "session to end",
                        {{"runId", run_id}, {"queuedMessageCount", totals.count}});
    core::QueuedMessage message;
    message.id = core::new_prefixed_id("qm");
    message.run_id = run_id;
    message.text = text;
    message.source = {{"actor", actor.name}};
    message.created_at = core::now_iso8601();
    c.queued_messages().insert(message);
    detail::save_with_audit(c, *run, "run.message_queued", actor,
                            {{"messageId", message.id}, {"length", text.size()}, {"queuedMessageCount", totals.count + 1}});
    return message;
  });
}

core::Result<std::vector<core::QueuedMessage>> Engine::list_queued_messages(const std::string& run_id) {
  return db_.read([&](store::Transaction& c) -> core::Result<std::vector<core::QueuedMessage>> {
    if (auto run = detail::load_run(c, run_id); !run) return run.failure();
    return c.queued_messages().list(run_id);
  });
}

core::Result<DeletedQueuedMessage> Engine::remove_queued_message(const std::string& run_id,
                                                                 const std::string& message_id, const Actor& actor) {
  return mutate<DeletedQueuedMessage>(run_id, [&](store::Transaction& c) -> core::Result<DeletedQueuedMessage> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto ok = detail::check_allowed(Operation::remove_queued_message, *run, "remove a queued message of"); !ok)
      return ok.failure();
    if (!c.queued_messages().remove(run_id, message_id))
      return core::fail(core::ErrorCode::not_found,
                        "run " + run_id + " has no queued message '" + message_id +
                            "' (it may have been delivered already)",
                        {{"runId", run_id}, {"messageId", message_id}});
    run->queued_message_count = std::max(0, run->queued_message_count - 1);
    detail::save_with_audit(c, *run, "run.message_removed", actor, {{"messageId", message_id}});
    return DeletedQueuedMessage{run_id, message_id};
  });
}

core::Result<int> Engine::deliver_queued_after_restart() {
  auto ids = db_.read([&](store::Transaction& c) -> core::Result<std::vector<std::string>> {
    return c.queued_messages().run_ids();
  });
  if (!ids) return ids.failure();
  int started = 0;
  const Actor daemon{"daemon"};
  for (const auto& id : *ids) {
    if (live_.find(id)) continue;  // its session is running here and will deliver them itself
    std::string prompt;
    auto delivered = mutate<std::optional<core::Run>>(id, [&](store::Transaction& c) -> core::Result<std::optional<core::Run>> {
      auto run = detail::load_run(c, id);
      if (!run || !owes_delivery(c, *run)) return std::optional<core::Run>{};
      if (!backends_.has(run->frozen.backend)) {
        core::log_warn("queued messages not delivered: the run's backend is not available",
                       {{"runId", id}, {"backend", run->frozen.backend}});
        return std::optional<core::Run>{};
      }
      auto text = detail::resume_with_queue(c, *run, config_.controller_id, daemon, true, &config_.task_prompt);
      if (!text) return std::optional<core::Run>{};
      prompt = std::move(*text);
      return std::optional<core::Run>(std::move(*run));
    });
    if (!delivered) return delivered.failure();
    if (!*delivered) continue;
    ++started;
    core::log_info("delivered queued messages after restart", {{"runId", id}});
    if ((*delivered)->frozen.backend != core::passive_backend) launch_session(**delivered, prompt);
  }
  return started;
}

}  // namespace agentry::engine
