#pragma once
// The SQL text both stores share for store/usage_repository.hpp; only the placeholders
// differ (SQLite's ?N, PostgreSQL's $N), so each store passes its own.

#include "store/usage_repository.hpp"

#include <string>
#include <string_view>

namespace agentry::store {

/// What summarize() shows as the key, and what it groups and orders by. A session is
/// shown as "<run id>/<session index>" but ordered by its index as a number.
struct UsageKey {
  std::string_view shown, grouped;
};

inline UsageKey usage_key(UsageGrouping by) {
  switch (by) {
    case UsageGrouping::agent: return {"r.agent_name", "r.agent_name"};
    case UsageGrouping::day: return {"u.day", "u.day"};
    case UsageGrouping::group: return {"r.run_group_id", "r.run_group_id"};
    case UsageGrouping::run: return {"u.run_id", "u.run_id"};
    case UsageGrouping::session:
      return {"u.run_id || '/' || CAST(u.session_index AS TEXT)", "u.run_id, u.session_index"};
  }
  return {"r.agent_name", "r.agent_name"};
}

/// Parameters: 1 run_id, 2 session_index, 3 attempt_number, 4 model ('' unknown), 5 day,
/// 6 input, 7 cached input, 8 output, 9 reasoning. `p` is the placeholder prefix.
inline std::string usage_upsert_sql(std::string_view p) {
  auto n = [&](int i) { return std::string(p) + std::to_string(i); };
  return "INSERT INTO run_usage (run_id, session_index, attempt_number, model, day, input_tokens, cached_tokens, "
         "output_tokens, reasoning_tokens) VALUES (" +
         n(1) + ", " + n(2) + ", " + n(3) + ", " + n(4) + ", " + n(5) + ", " + n(6) + ", " + n(7) + ", " + n(8) +
         ", " + n(9) +
         ") ON CONFLICT (run_id, session_index, attempt_number, model, day) DO UPDATE SET "
         "input_tokens = run_usage.input_tokens + excluded.input_tokens, "
         "cached_tokens = run_usage.cached_tokens + excluded.cached_tokens, "
         "output_tokens = run_usage.output_tokens + excluded.output_tokens, "
         "reasoning_tokens = run_usage.reasoning_tokens + excluded.reasoning_tokens";
}

/// Parameters: 1 since ('' none), 2 until ('' none). Columns: key, model, input, cached,
/// output, reasoning, runs. `cast` types the parameters where the engine asks for it.
inline std::string usage_summary_sql(UsageGrouping by, std::string_view p, std::string_view cast = "") {
  const auto key = usage_key(by);
  const std::string shown(key.shown), grouped(key.grouped);
  const std::string since = std::string(p) + "1" + std::string(cast), until = std::string(p) + "2" + std::string(cast);
  return "SELECT " + shown +
         ", u.model, sum(u.input_tokens), sum(u.cached_tokens), sum(u.output_tokens), sum(u.reasoning_tokens), "
         "count(DISTINCT u.run_id) FROM run_usage u JOIN runs r ON r.id = u.run_id WHERE (" +
         since + " = '' OR u.day >= " + since + ") AND (" + until + " = '' OR u.day <= " + until + ") GROUP BY " +
         grouped + ", u.model ORDER BY " + grouped + ", u.model";
}

}  // namespace agentry::store
