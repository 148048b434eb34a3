#pragma once
// The tokens runs used, summed per run, session, attempt, model and day as backends
// report them (usage events carry increments: plugin-api events.h). Each increment is
// added in the write that appends its usage event, so a crash loses or repeats neither.
// Per-run totals by model are also kept beside the run row (core::Run::usage).

#include "core/usage.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store {

struct UsageIncrement {
  std::string run_id;
  int session_index = 0;
  int attempt_number = 0;
  std::string day;  // UTC, YYYY-MM-DD
  core::ModelUsage usage;
};

/// What summarize() groups by: the run's agent, the day, the run's group, the run or one
/// of its sessions.
enum class UsageGrouping { agent, day, group, run, session };

struct UsageQuery {
  UsageGrouping by = UsageGrouping::agent;
  std::optional<std::string> since;  // days, inclusive (YYYY-MM-DD)
  std::optional<std::string> until;
};

struct UsageRow {
  std::string key;  // the agent's name, the day, the group id, the run id or "<run id>/<session index>"
  core::ModelUsage usage;
  std::int64_t runs = 0;  // how many runs used it
};

class UsageRepository {
 public:
  virtual ~UsageRepository() = default;

  /// Adds the increment to its row and to the run's totals.
  virtual void add(const UsageIncrement& increment) = 0;
  /// The sums per key and model, ordered by key then model.
  virtual std::vector<UsageRow> summarize(const UsageQuery& query) = 0;
};

}  // namespace agentry::store
