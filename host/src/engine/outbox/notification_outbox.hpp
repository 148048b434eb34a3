#pragma once
// Queues completion notifications (core/notify_target.hpp) in the outbox, inside the
// write transaction of the change that causes them: a run's session ending
// (run.finished) and an approval the agent waits on (run.needs_user). What is
// committed is delivered (notify/ in the serving daemon); what rolls back never is.

#include "core/run.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace agentry::store {
class Transaction;
}  // namespace agentry::store

namespace agentry::engine::detail {

/// One outbox row per target of `run` that wants `event`. `occurrence` makes the
/// idempotency key ("<runId>:<event>:<occurrence>") unique per happening and stable
/// across retries; queuing the same occurrence twice is a no-op. `extra` is merged into
/// the event body (e.g. "approval"). `held`: queued but not due until released
/// (engine/hooks/after_exit.hpp). Returns how many rows were queued.
int queue_notification(store::Transaction& c, const core::Run& run, std::string_view event,
                       const std::string& occurrence, boost::json::object extra = {}, bool held = false);

}  // namespace agentry::engine::detail
