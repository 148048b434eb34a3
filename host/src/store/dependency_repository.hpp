#pragma once
// Persistence of run dependencies (the `dependencies` table of migration 1) and the
// few facts about other runs that evaluating them needs: a run's status, a group's
// members. Reads that serve lists take many runs at once (one statement per page).

#include "core/dependency.hpp"
#include "core/run.hpp"
#include "store/sqlite.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store {

/// What dependency evaluation needs to know about one run.
struct RunPoint {
  std::string id;
  core::RunStatus status = core::RunStatus::initialized;
  bool archived = false;
  std::string group_id;
};

/// A dependency row, with the run that holds it.
struct DependencyEdge {
  std::string run_id;
  core::Dependency dependency;
};

class DependencyRepository {
 public:
  static void insert(Connection& c, const std::string& run_id, const core::Dependency& dependency);
  /// False when the run had no such dependency.
  static bool remove(Connection& c, const std::string& run_id, core::DependencyType type, const std::string& target);
  /// Returns how many were removed.
  static int remove_all(Connection& c, const std::string& run_id);
  /// Oldest first.
  static std::vector<core::Dependency> list(Connection& c, const std::string& run_id);
  /// The dependencies of each of `run_ids` that has any.
  static std::map<std::string, std::vector<core::Dependency>> list_many(Connection& c,
                                                                        const std::vector<std::string>& run_ids);
  /// Dependencies naming run `run_id`, or group `group_id` (empty: none), by any run.
  static std::vector<DependencyEdge> naming(Connection& c, const std::string& run_id, const std::string& group_id);
  /// The groups `run_id` was moved out of (its run.group_set audit records), when any
  /// run waits on a group at all; empty otherwise.
  static std::vector<std::string> groups_left(Connection& c, const std::string& run_id);
  /// Every run that has at least one dependency.
  static std::vector<std::string> runs_with_dependencies(Connection& c);

  static std::optional<RunPoint> point(Connection& c, const std::string& run_id);
  /// Every member of the group, archived ones too.
  static std::vector<RunPoint> group_members(Connection& c, const std::string& group_id);
};

}  // namespace agentry::store
