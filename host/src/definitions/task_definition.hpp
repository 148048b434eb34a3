#pragma once
// A reusable task that assignments list by id. File: tasks/<id>.md, where the id may
// contain slashes (tasks/review/check.md is "review/check").

#include "core/hook.hpp"
#include "definitions/problem.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace agentry::definitions {

struct TaskDefinition {
  std::string id;
  std::filesystem::path source_path;
  std::string title;  // defaults to the id
  std::string body;
  std::vector<core::HookSpec> hooks;  // taskTransition hooks of this task, origin "task:<id>"
  std::vector<Problem> warnings;
};

}  // namespace agentry::definitions
