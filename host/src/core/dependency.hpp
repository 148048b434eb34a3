#pragma once
// Run dependencies: a run may wait on another run (until it ends `success`) or on a run
// group (until every non-archived member has). Plain values; the engine evaluates them
// (engine/dependencies/dependency_checks.hpp) and the store keeps them (store/dependency_repository.hpp).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::core {

enum class RunStatus;

enum class DependencyType { run, group };

std::string_view to_string(DependencyType type);
std::optional<DependencyType> parse_dependency_type(std::string_view text);

struct Dependency {
  DependencyType type = DependencyType::run;
  std::string target;  // a run id, or a run group id
  std::string created_at;
};

/// "run:<id>" or "group:<id>": how errors and the CLI name a dependency.
std::string describe(const Dependency& dependency);

/// A dependency as it stands now. A target that does not exist (a deleted run, a group
/// with no non-archived member) is unsatisfied, never an error.
struct DependencyStatus {
  Dependency dependency;
  bool satisfied = false;
  bool missing = false;
  std::optional<RunStatus> status;  // type run: the target's status, when it exists
  int members = 0;                  // type group: non-archived members
  int succeeded = 0;                // ... of which ended success
  int archived = 0;                 // type group: archived members, left out of `members`
};

/// A run that waits on this one: directly (type run) or through this run's group.
struct Dependent {
  std::string run_id;
  RunStatus status;
  DependencyType via = DependencyType::run;
  std::string target;  // the run id or group id its dependency names
};

}  // namespace agentry::core
