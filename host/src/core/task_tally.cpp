#include "core/task_tally.hpp"

namespace agentry::core {

void TaskTally::add(const std::string& id, const std::string& title, TaskStatus status) {
  total += 1;
  switch (status) {
    case TaskStatus::pending: pending += 1; break;
    case TaskStatus::in_progress:
      in_progress += 1;
      if (!active) active = std::make_pair(id, title);
      break;
    case TaskStatus::completed: completed += 1; break;
    case TaskStatus::blocked: blocked += 1; break;
  }
}

TaskTally tally(const std::vector<Task>& tasks) {
  TaskTally t;
  for (const auto& task : tasks) t.add(task.id, task.title, task.status);
  return t;
}

}  // namespace agentry::core
