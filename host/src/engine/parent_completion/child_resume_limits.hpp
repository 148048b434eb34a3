#pragma once
// Bounds on what child runs can do to their parent. An agent that starts a detached
// child in every session is resumed by each child's end, which starts another child:
// without bounds that is a loop as fast as the agents run. So:
//  - a parent is resumed by its children's completions at most `max_resumes` times in
//    any `window`; past that a completion is held on the parent's queue (recorded, as a
//    queued message carrying its source) and one resume delivers every held completion
//    once the window allows (Engine::resume_held_completions);
//  - a parent has at most `max_live_children` children that have not ended yet
//    (initialized, ready or running, not archived); creating one more is refused.

#include "core/run.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace agentry::store {
class Transaction;
}  // namespace agentry::store

namespace agentry::engine {

struct ChildResumeLimits {
  int max_resumes = 6;                                 // AGENTRY_CHILD_RESUME_LIMIT
  std::chrono::seconds window{60};                     // AGENTRY_CHILD_RESUME_WINDOW_SEC
  int max_live_children = 32;                          // AGENTRY_MAX_LIVE_CHILDREN
};

namespace detail {

/// How long until `parent` may be resumed by a child's completion again: nullopt when
/// it may now (fewer than max_resumes such sessions started within the window).
std::optional<std::chrono::milliseconds> child_resume_wait(store::Transaction& c, const core::Run& parent,
                                                           const ChildResumeLimits& limits, std::int64_t now_ms);

/// Whether a session's source says it delivered a child's completion (directly, or
/// among queued messages).
bool carries_child_completion(const boost::json::object& session_source);

/// When `run`'s session ends: whether its queued messages include a child's completion
/// that its resume rate holds back (they then stay queued for
/// Engine::resume_held_completions). False without `limits`.
bool holds_child_completions(store::Transaction& c, const core::Run& run, const ChildResumeLimits* limits);

/// VALIDATION_FAILED (reason too_many_children) when `parent_id` already has
/// max_live_children children that have not ended.
core::Result<void> check_live_children(store::Transaction& c, const std::string& parent_id,
                                       const ChildResumeLimits& limits);

}  // namespace detail
}  // namespace agentry::engine
