#pragma once
// Persistence of a run's tasks, and the per-run task tallies list pages need.

#include "core/run.hpp"
#include "core/task_tally.hpp"
#include "store/sqlite.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store {

class TaskRepository {
 public:
  static void insert(Connection& c, const core::Task& task);
  static bool update(Connection& c, const core::Task& task);
  static bool remove(Connection& c, std::string_view run_id, std::string_view task_id);
  static void remove_all(Connection& c, std::string_view run_id);
  static std::optional<core::Task> get(Connection& c, std::string_view run_id, std::string_view task_id);
  /// In position order.
  static std::vector<core::Task> list(Connection& c, std::string_view run_id);
  static int next_position(Connection& c, std::string_view run_id);
  /// Tallies for many runs in one query (list pages).
  static std::map<std::string, core::TaskTally> tallies(Connection& c, const std::vector<std::string>& run_ids);
};

}  // namespace agentry::store
