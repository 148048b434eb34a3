#include "engine/parent_completion/child_resume_limits.hpp"

#include "core/clock.hpp"
#include "store/queued_message_repository.hpp"
#include "store/run_repository.hpp"
#include "store/session_repository.hpp"
#include "store/transaction.hpp"

#include <algorithm>
#include <vector>

namespace agentry::engine::detail {
namespace json = boost::json;

bool carries_child_completion(const json::object& source) {
  if (auto* kind = source.if_contains("kind"); kind && kind->is_string() && kind->as_string() == "child_completion")
    return true;
  if (auto* listed = source.if_contains("sources"); listed && listed->is_array())
    for (const auto& item : listed->as_array())
      if (item.is_object() && carries_child_completion(item.as_object())) return true;
  if (auto* queued = source.if_contains("queued"); queued && queued->is_object())
    return carries_child_completion(queued->as_object());
  return false;
}

std::optional<std::chrono::milliseconds> child_resume_wait(store::Transaction& c, const core::Run& parent,
                                                           const ChildResumeLimits& limits, std::int64_t now_ms) {
  const std::int64_t window_ms = std::chrono::duration_cast<std::chrono::milliseconds>(limits.window).count();
  std::vector<std::int64_t> recent;  // starts of child-completion sessions within the window
  for (const auto& session : c.sessions().list(parent.id)) {
    if (!carries_child_completion(session.source)) continue;
    const auto started = core::parse_iso8601(session.started_at);
    if (started && *started > now_ms - window_ms) recent.push_back(*started);
  }
  if (static_cast<int>(recent.size()) < limits.max_resumes) return std::nullopt;
  // Allowed again once the oldest of the last max_resumes leaves the window.
  std::sort(recent.begin(), recent.end(), std::greater<>());
  const std::int64_t oldest_counted = recent[static_cast<std::size_t>(limits.max_resumes) - 1];
  return std::chrono::milliseconds(std::max<std::int64_t>(1, oldest_counted + window_ms - now_ms));
}

bool holds_child_completions(store::Transaction& c, const core::Run& run, const ChildResumeLimits* limits) {
  if (!limits || run.queued_message_count == 0) return false;
  const auto queued = c.queued_messages().list(run.id);
  const bool from_children = std::any_of(queued.begin(), queued.end(), [](const core::QueuedMessage& m) {
    return carries_child_completion(m.source);
  });
  return from_children && child_resume_wait(c, run, *limits, core::now_ms()).has_value();
}

core::Result<void> check_live_children(store::Transaction& c, const std::string& parent_id,
                                       const ChildResumeLimits& limits) {
  const auto live = c.runs().count_live_children(parent_id);
  if (live < limits.max_live_children) return core::ok();
  return core::fail(core::ErrorCode::validation,
                    "run " + parent_id + " already has " + std::to_string(live) +
                        " child runs that have not ended (AGENTRY_MAX_LIVE_CHILDREN=" +
                        std::to_string(limits.max_live_children) +
                        "); wait for some to end, archive them, or raise the limit. Is an agent starting agents "
                        "in a loop?",
                    {{"field", "parentRunId"}, {"reason", "too_many_children"}, {"liveChildren", live},
                     {"maxLiveChildren", limits.max_live_children}});
}

}  // namespace agentry::engine::detail
