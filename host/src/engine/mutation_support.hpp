#pragma once
// Building blocks shared by every engine mutation. All of them run inside the write's
// store::Transaction.

#include "core/lifecycle.hpp"
#include "core/result.hpp"
#include "core/run.hpp"
#include "engine/requests.hpp"

#include <boost/json/object.hpp>

#include <string>

namespace agentry::store {
class Transaction;
}  // namespace agentry::store

namespace agentry::engine::detail {

/// The run as committed, or NOT_FOUND.
core::Result<core::Run> load_run(store::Transaction& c, const std::string& run_id);

/// CONFLICT naming the operation and why, when core::refusal() says no.
core::Result<void> check_allowed(core::Operation op, const core::Run& run, std::string_view operation_name);

/// Marks the run changed: updated_at = now, revision + 1.
void touch(core::Run& run);

/// Persists the run row (after touch) and appends one audit record.
void save_with_audit(store::Transaction& c, core::Run& run, std::string type, const Actor& actor,
                     boost::json::object data = {});

void append_audit(store::Transaction& c, const std::string& run_id, std::string type, const Actor& actor,
                  boost::json::object data = {});

/// Opens the next session of `run` (status running) with `prompt`. The caller saves the run.
/// `source`: structured metadata on what opened it (core::Session::source). A child that
/// notifies its parent records the pending notification of the new session here
/// (engine/parent_completion/parent_notifications.hpp), so every way of opening a session does.
void open_session(store::Transaction& c, core::Run& run, const std::string& prompt, const std::string& controller_id,
                  boost::json::object source = {});

/// Opens the next attempt of the current session (attempt.started on the timeline, its
/// payload extended by `extra`). The caller saves the run.
void open_attempt(store::Transaction& c, core::Run& run, boost::json::object extra = {});

/// How many attempts the run's current session has made so far.
int attempts_in_current_session(store::Transaction& c, const core::Run& run);

/// Ends the current session with a terminal status; `ended_by` says what ended it
/// (core::Session::ended_by). The caller saves the run.
void close_session(store::Transaction& c, core::Run& run, core::RunStatus status, const std::string& reason,
                   const std::string& ended_by);

/// For passive runs: if the tasks now imply a terminal status, end the session, and
/// deliver the messages queued meanwhile in a new one. Returns the status the session
/// ended with, when it ended.
std::optional<core::RunStatus> settle_passive_run(store::Transaction& c, core::Run& run, const Actor& actor);

}  // namespace agentry::engine::detail
