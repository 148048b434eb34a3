#pragma once
// Problems found in definition files. Every problem a user sees names the file, the
// field and what is wrong, so it can be fixed without opening the source code.

#include "core/error.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace agentry::definitions {

struct Problem {
  std::string path;     // the file; empty when the problem is not about a file (run-time vars)
  std::string field;    // dotted path inside the file, e.g. "vars.target.type"; empty = whole file
  std::string message;  // what is wrong and, when it helps, what to write instead

  bool operator==(const Problem&) const = default;
};

/// "path: field: message", leaving out the parts that are empty.
std::string describe(const Problem& problem);
/// { path, field, message }; `path` is omitted when empty.
boost::json::object to_json(const Problem& problem);
boost::json::array to_json(const std::vector<Problem>& problems);

/// A VALIDATION_FAILED error whose message describes the first problem and whose
/// details carry { path, field, problems: [...] }. `errors` must not be empty.
core::Error validation_error(const std::vector<Problem>& errors);

/// Collects what is wrong with one file while it is read, so a user sees every
/// problem at once instead of fixing them one reload at a time.
class Diagnostics {
 public:
  explicit Diagnostics(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  void error(std::string field, std::string message);
  void warn(std::string field, std::string message);
  /// Problems found in another file this one depends on (a referenced task definition).
  void add_errors(const std::vector<Problem>& problems);
  void add_warnings(const std::vector<Problem>& problems);

  bool has_errors() const { return !errors_.empty(); }
  const std::vector<Problem>& errors() const { return errors_; }
  const std::vector<Problem>& warnings() const { return warnings_; }

 private:
  std::string path_;
  std::vector<Problem> errors_;
  std::vector<Problem> warnings_;
};

}  // namespace agentry::definitions
