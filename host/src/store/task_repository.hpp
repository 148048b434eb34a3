#pragma once
// Persistence of a run's tasks, and the per-run task tallies list pages need.

#include "core/run.hpp"
#include "core/task_tally.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store {

class TaskRepository {
 public:
  virtual ~TaskRepository() = default;

  virtual void insert(const core::Task& task) = 0;
  virtual bool update(const core::Task& task) = 0;
  virtual bool remove(std::string_view run_id, std::string_view task_id) = 0;
  virtual void remove_all(std::string_view run_id) = 0;
  virtual std::optional<core::Task> get(std::string_view run_id, std::string_view task_id) = 0;
  /// In position order.
  virtual std::vector<core::Task> list(std::string_view run_id) = 0;
  virtual int next_position(std::string_view run_id) = 0;
  /// Tallies for many runs in one query (list pages).
  virtual std::map<std::string, core::TaskTally> tallies(const std::vector<std::string>& run_ids) = 0;
};

}  // namespace agentry::store
