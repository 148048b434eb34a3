#pragma once
// Counts of a run's tasks by status, and the task it is working on now.

#include "core/run.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentry::core {

struct TaskTally {
  int total = 0;
  int pending = 0;
  int in_progress = 0;
  int completed = 0;
  int blocked = 0;
  std::optional<std::pair<std::string, std::string>> active;  // id, title of the first in-progress task

  void add(const std::string& id, const std::string& title, TaskStatus status);
};

TaskTally tally(const std::vector<Task>& tasks);

}  // namespace agentry::core
