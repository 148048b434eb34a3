#include "definitions/problem.hpp"

namespace agentry::definitions {

std::string describe(const Problem& problem) {
  std::string text;
  if (!problem.path.empty()) text += problem.path + ": ";
  if (!problem.field.empty()) text += problem.field + ": ";
  text += problem.message;
  return text;
}

boost::json::object to_json(const Problem& problem) {
  boost::json::object out;
  if (!problem.path.empty()) out["path"] = problem.path;
  out["field"] = problem.field;
  out["message"] = problem.message;
  return out;
}

boost::json::array to_json(const std::vector<Problem>& problems) {
  boost::json::array out;
  out.reserve(problems.size());
  for (const auto& problem : problems) out.emplace_back(to_json(problem));
  return out;
}

core::Error validation_error(const std::vector<Problem>& errors) {
  const Problem first = errors.empty() ? Problem{} : errors.front();
  std::string message = describe(first);
  if (errors.size() > 1) {
    message += " (and " + std::to_string(errors.size() - 1) + " more problem" +
               (errors.size() > 2 ? "s" : "") + ")";
  }
  boost::json::object details;
  if (!first.path.empty()) details["path"] = first.path;
  details["field"] = first.field;
  details["problems"] = to_json(errors);
  return core::make_error(core::ErrorCode::validation, std::move(message), std::move(details));
}

void Diagnostics::error(std::string field, std::string message) {
  errors_.push_back(Problem{path_, std::move(field), std::move(message)});
}

void Diagnostics::warn(std::string field, std::string message) {
  warnings_.push_back(Problem{path_, std::move(field), std::move(message)});
}

void Diagnostics::add_errors(const std::vector<Problem>& problems) {
  errors_.insert(errors_.end(), problems.begin(), problems.end());
}

void Diagnostics::add_warnings(const std::vector<Problem>& problems) {
  warnings_.insert(warnings_.end(), problems.begin(), problems.end());
}

}  // namespace agentry::definitions
