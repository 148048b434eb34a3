// ParentCompletionService: child completions held on a parent's queue because its child-resume rate was
// reached (engine/parent_completion/child_resume_limits.hpp). Once the rate allows, one session delivers
// all of them together, as a resume with queued messages would.

#include "engine/parent_completion/parent_completion_service.hpp"
#include "engine/backend_catalog.hpp"
#include "engine/delayed_calls.hpp"
#include "engine/run_change_watcher.hpp"
#include "engine/run_starts.hpp"

#include "core/clock.hpp"
#include "core/lifecycle.hpp"
#include "core/log.hpp"
#include "engine/parent_completion/child_resume_limits.hpp"
#include "engine/dependencies/dependency_checks.hpp"
#include "engine/queued_delivery.hpp"
#include "store/parent_notification_repository.hpp"
#include "store/queued_message_repository.hpp"
#include "store/run_repository.hpp"
#include "store/store.hpp"

#include <algorithm>

namespace agentry::engine {

namespace {

bool holds_completions(const std::vector<core::QueuedMessage>& queued) {
  return std::any_of(queued.begin(), queued.end(),
                     [](const core::QueuedMessage& m) { return detail::carries_child_completion(m.source); });
}

}  // namespace

void ParentCompletionService::changed(const std::vector<std::string>& run_ids) {
  struct Look {
    std::vector<std::string> owing;    // a parent a notification
    std::vector<std::string> holding;  // child completions on their queue
  };
  auto look = db_.read([&](store::Transaction& c) -> core::Result<Look> {
    Look out;
    for (const auto& id : run_ids) {
      if (!c.parent_notifications().pending(id).empty()) out.owing.push_back(id);
      if (holds_completions(c.queued_messages().list(id))) out.holding.push_back(id);
    }
    return out;
  });
  if (!look) {
    core::log_error("cannot read what changed runs owe their parents",
                    {{"runId", run_ids.front()}, {"runs", std::to_string(run_ids.size())}, {"error", look.error().message}});
    return;
  }
  for (const auto& id : look->owing)
    if (auto done = deliver(id, false); !done)
      core::log_error("delivering a parent-completion notification failed",
                      {{"runId", id}, {"error", done.error().message}});
  // Parents whose session just ended with completions their rate held back.
  for (const auto& id : look->holding) resume_held(id);
}

void ParentCompletionService::resume_held(const std::string& parent_id) {
  // A read first: this looks at every run that changed, and few hold anything.
  auto holding = db_.read([&](store::Transaction& c) -> core::Result<bool> {
    auto run = c.runs().get(parent_id);
    if (!run || run->queued_message_count == 0 || !core::is_terminal(run->status)) return false;
    return holds_completions(c.queued_messages().list(parent_id));
  });
  if (!holding || !*holding) return;
  std::optional<std::chrono::milliseconds> again;
  std::string prompt;
  // Written only when a session opens: a look that changes nothing tells nobody (the
  // watcher that called this would otherwise hear of it, and call again).
  auto resumed = db_.write<std::optional<core::Run>>([&](store::Transaction& c) -> core::Result<std::optional<core::Run>> {
    again.reset();
    auto run = c.runs().get(parent_id);
    // A running parent delivers its queue when its session ends; one resumed by hand
    // took the queue with it.
    if (!run || !core::is_terminal(run->status) || run->damaged) return std::optional<core::Run>{};
    if (!holds_completions(c.queued_messages().list(parent_id))) return std::optional<core::Run>{};
    if (auto wait = detail::child_resume_wait(c, *run, settings_.child_limits, core::now_ms())) {
      again = wait;
      return std::optional<core::Run>{};
    }
    if (core::refusal(core::Operation::resume, core::facts_of(*run)) || !backends_.has(run->frozen.backend) ||
        !detail::check_dependencies_met(c, *run, "resume"))
      return std::optional<core::Run>{};  // as for a completion delivered at once: it stays queued
    auto text = detail::resume_with_queue(c, *run, settings_.controller_id, Actor{"daemon"}, false, settings_.task_prompt);
    if (!text) return std::optional<core::Run>{};
    prompt = std::move(*text);
    return std::optional<core::Run>(std::move(*run));
  });
  if (!resumed) {
    core::log_error("resuming a parent with its held child completions failed",
                    {{"runId", parent_id}, {"error", resumed.error().message}});
    return;
  }
  if (again) held_resumes_->call_after(parent_id, *again);
  if (!*resumed) return;
  bus_.run_changed(parent_id);
  core::log_info("resumed a parent with the child completions held for it", {{"runId", parent_id}});
  if ((*resumed)->frozen.backend != core::passive_backend) runs_.launch_session(**resumed, prompt);
}

}  // namespace agentry::engine
