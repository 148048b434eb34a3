#pragma once
// Delivering queued messages: when a run's session ends (other than by the user's
// abort), the messages queued meanwhile become the prompt of exactly one new session.
// Opening that session and deleting the queued rows happen in the caller's write job,
// one transaction: the messages are cleared only when the session that carries them is
// recorded, so a crash can neither lose nor double them.

#include "engine/task_prompt.hpp"
#include "core/run.hpp"
#include "engine/requests.hpp"

#include <optional>
#include <string>
#include <vector>

namespace agentry::store {
class Transaction;
}  // namespace agentry::store

namespace agentry::engine::detail {

/// The texts, oldest first, separated by a blank line.
std::string join_queued_texts(const std::vector<core::QueuedMessage>& messages);

/// The source metadata of a session that delivers `messages`: {kind: "queued_messages",
/// sources: [...]} listing the structured sources of those that have one (a child's
/// completion), so that a delivery stays recognisable once the queue is gone; empty
/// when none has.
boost::json::object queued_session_source(const std::vector<core::QueuedMessage>& messages);

/// Whether a session that ended this way delivers the queue at once: a user's abort
/// means stop, and a daemon shutting down cannot start anything (startup recovery
/// delivers those later).
bool delivers_queue(const std::string& ended_by);

/// If `run` has queued messages and may be resumed, opens its next session with their
/// joined texts as the prompt (and, for a live backend, its first attempt), deletes the
/// messages, and audits run.resumed {source: "queued_messages", count}. The caller
/// saves the run. Returns the prompt when a session was opened.
/// With `tasks`, the prompt starts with the run's task section (engine/task_prompt.hpp).
std::optional<std::string> deliver_queued_messages(store::Transaction& c, core::Run& run,
                                                   const std::string& controller_id, const Actor& actor,
                                                   bool recovered = false, const TaskPromptSettings* tasks = nullptr);

/// deliver_queued_messages() for a run no live session holds (startup recovery, held
/// child completions), the run saved with it. Returns the prompt when a session opened.
std::optional<std::string> resume_with_queue(store::Transaction& c, core::Run& run, const std::string& controller_id,
                                             const Actor& actor, bool recovered, const TaskPromptSettings* tasks);

}  // namespace agentry::engine::detail
