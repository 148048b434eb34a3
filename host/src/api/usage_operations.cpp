// usage.summary (GET /api/usage): the tokens runs used, per agent, day, group, run or
// session, and what they cost by the current prices.yaml (docs/usage.md).

#include "api/operations.hpp"
#include "core/usage.hpp"
#include "engine/engine.hpp"
#include "core/json_strings.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <cctype>
#include <set>

namespace agentry::api {
namespace json = boost::json;
using core::Result;

namespace {

struct GroupingName {
  engine::UsageGrouping grouping;
  const char* name;
};
constexpr GroupingName groupings[] = {{engine::UsageGrouping::agent, "agent"},
                                      {engine::UsageGrouping::day, "day"},
                                      {engine::UsageGrouping::group, "group"},
                                      {engine::UsageGrouping::run, "run"},
                                      {engine::UsageGrouping::session, "session"}};

Result<engine::UsageGrouping> grouping_of(const std::optional<std::string>& by) {
  if (!by) return engine::UsageGrouping::agent;
  for (const auto& g : groupings)
    if (*by == g.name) return g.grouping;
  return core::fail(core::ErrorCode::invalid_request,
                    "field 'by' must be agent, day, group, run or session, not '" + *by + "'", {{"field", "by"}});
}

const char* name_of(engine::UsageGrouping by) {
  for (const auto& g : groupings)
    if (g.grouping == by) return g.name;
  return "agent";
}

bool is_day(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  return true;
}

Result<std::optional<std::string>> day_param(const JsonBody& params, std::string_view key) {
  auto value = text_param(params, key);
  if (!value) return value.failure();
  if (*value && !is_day(**value))
    return core::fail(core::ErrorCode::invalid_request,
                      "field '" + std::string(key) + "' must be a UTC day, YYYY-MM-DD, not '" + **value + "'",
                      {{"field", std::string(key)}});
  return *value;
}

}  // namespace

void add_usage_operations(Operations& ops, ApiContext& ctx) {
  ops.add("usage.summary", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    auto params = params_of(r, {"by", "since", "until"});
    if (!params) return params.failure();
    auto by_text = text_param(*params, "by");
    if (!by_text) return by_text.failure();
    auto by = grouping_of(*by_text);
    if (!by) return by.failure();
    auto since = day_param(*params, "since");
    if (!since) return since.failure();
    auto until = day_param(*params, "until");
    if (!until) return until.failure();
    if (*since && *until && **since > **until)
      return core::fail(core::ErrorCode::invalid_request, "field 'since' must not be after 'until'",
                        {{"field", "since"}});
    auto rows = ctx.engine.usage({*by, *since, *until});
    if (!rows) return rows.failure();
    const auto prices = core::current_prices();
    // Rows come ordered by key, then model: one entry per key with its models.
    std::vector<std::pair<std::string, std::vector<core::ModelUsage>>> keyed;
    std::vector<core::ModelUsage> all;
    for (const auto& row : *rows) {
      if (keyed.empty() || keyed.back().first != row.key) keyed.emplace_back(row.key, std::vector<core::ModelUsage>{});
      keyed.back().second.push_back(row.usage);
      core::add_usage(all, row.usage);
    }
    std::vector<std::string> warnings;
    json::array entries;
    for (const auto& [key, usage] : keyed) {
      auto entry = core::usage_json(usage, *prices);
      entry["key"] = key;
      entries.push_back(std::move(entry));
    }
    auto total = core::usage_json(all, *prices, &warnings);  // one warning per unpriced model
    json::array warning_list;
    for (const auto& w : warnings) warning_list.emplace_back(w);
    return OperationResult{json::object{{"by", name_of(*by)},
                                        {"since", core::text_or_null(*since)},
                                        {"until", core::text_or_null(*until)},
                                        {"entries", std::move(entries)},
                                        {"total", std::move(total)},
                                        {"warnings", std::move(warning_list)}}};
  });
}

}  // namespace agentry::api
