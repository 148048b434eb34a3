#pragma once
// What a usage event does to the store: its increment (plugin-api events.h) is added to
// the run's sums in the same write that appends the event (store/usage_repository.hpp),
// so a crash neither loses nor repeats it; and the run's budget (core::Budget) is checked
// against the new totals in that write too.

#include "core/run.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace agentry::store {
class Transaction;
}  // namespace agentry::store

namespace agentry::engine {

struct AttemptContext;

struct UsageRecorded {
  bool added = false;  // something was counted: summaries change
  /// The increment crossed the run's hard budget: the reason the run ends blocked.
  std::optional<std::string> budget_exceeded;
};

/// Adds the usage `payload` reports to the store and to `run.usage`; tokens without a
/// model count for the run's configured model, if it has one. Crossing the budget's
/// soft limit queues one run.needs_user notification with the reason; crossing its hard
/// limit is reported for the live run to stop the attempt.
UsageRecorded record_usage(store::Transaction& c, core::Run& run, const AttemptContext& a,
                           const boost::json::object& payload);

}  // namespace agentry::engine
