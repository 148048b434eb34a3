#include "engine/live/usage_events.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "engine/live/attempt_events.hpp"
#include "engine/outbox/notification_outbox.hpp"
#include "store/transaction.hpp"
#include "store/usage_repository.hpp"

#include <cstdio>

namespace agentry::engine {
namespace {

/// What the budget measures of `usage`: tokens, or USD by the current prices; nullopt
/// when a USD budget meets a model without a price (no guessed number stops a run).
std::optional<double> measure(const core::Budget& budget, const std::vector<core::ModelUsage>& usage) {
  if (budget.tokens) {
    std::int64_t total = 0;
    for (const auto& u : usage) total += u.tokens.total();
    return static_cast<double>(total);
  }
  const auto prices = core::current_prices();
  double cost = 0;
  for (const auto& u : usage) {
    auto c = core::cost_of(u, *prices);
    if (!c) return std::nullopt;
    cost += *c;
  }
  return cost;
}

std::string amount(const core::Budget& budget, double value) {
  char text[64];
  if (budget.tokens) std::snprintf(text, sizeof text, "%.0f tokens", value);
  else std::snprintf(text, sizeof text, "$%.4f", value);
  return text;
}

}  // namespace

UsageRecorded record_usage(store::Transaction& c, core::Run& run, const AttemptContext& a,
                           const boost::json::object& payload) {
  UsageRecorded out;
  auto usage = core::usage_of_event(payload);
  if (usage.tokens.empty()) return out;
  if (!usage.model && !run.frozen.model.empty()) usage.model = run.frozen.model;
  const auto before = run.usage;
  // The day is UTC, as the event's time is: reports by day add up the same anywhere.
  c.usage().add({run.id, a.session_index, a.attempt_number, core::now_iso8601().substr(0, 10), usage});
  core::add_usage(run.usage, usage);
  core::warn_if_unpriced(usage.model);
  out.added = true;
  if (!run.frozen.budget) return out;
  const auto& budget = *run.frozen.budget;
  const double limit = budget.tokens ? static_cast<double>(*budget.tokens) : *budget.usd;
  auto was = measure(budget, before);
  auto now = measure(budget, run.usage);
  if (!was || !now) {
    core::log_warn("a usd budget cannot be checked: a model of the run has no price in prices.yaml",
                   {{"runId", run.id}, {"model", usage.model.value_or("unknown")}});
    return out;
  }
  const std::string of = amount(budget, *now) + " of " + amount(budget, limit);
  // Crossing, not being over: a run resumed past its budget goes on until it is reset.
  const double soft = limit * budget.soft, hard = limit * budget.hard;
  if (*was < soft && *now >= soft && soft < hard) {
    const std::string reason = "budget soft limit reached: " + of;
    detail::queue_notification(c, run, core::notify_event_needs_user, "budget-soft." + std::to_string(run.revision),
                               {{"reason", reason}, {"budget", core::budget_json(budget)}});
    core::log_info("run reached its soft budget", {{"runId", run.id}, {"used", of}});
  }
  if (*was < hard && *now >= hard) out.budget_exceeded = "budget exceeded: " + of;
  return out;
}

}  // namespace agentry::engine
