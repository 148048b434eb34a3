#pragma once
// Persistence of run dependencies (the `dependencies` table of migration 1) and the
// few facts about other runs that evaluating them needs: a run's status, a group's
// members. Reads that serve lists take many runs at once (one statement per page).

#include "core/dependency.hpp"
#include "core/run.hpp"

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
  virtual ~DependencyRepository() = default;

  virtual void insert(const std::string& run_id, const core::Dependency& dependency) = 0;
  /// False when the run had no such dependency.
  virtual bool remove(const std::string& run_id, core::DependencyType type, const std::string& target) = 0;
  /// Returns how many were removed.
  virtual int remove_all(const std::string& run_id) = 0;
  /// Oldest first.
  virtual std::vector<core::Dependency> list(const std::string& run_id) = 0;
  /// The dependencies of each of `run_ids` that has any.
  virtual std::map<std::string, std::vector<core::Dependency>> list_many(const std::vector<std::string>& run_ids) = 0;
  /// Dependencies naming run `run_id`, or group `group_id` (empty: none), by any run.
  virtual std::vector<DependencyEdge> naming(const std::string& run_id, const std::string& group_id) = 0;
  /// The groups `run_id` was moved out of (its run.group_set audit records), when any
  /// run waits on a group at all; empty otherwise.
  virtual std::vector<std::string> groups_left(const std::string& run_id) = 0;
  /// Every run that has at least one dependency.
  virtual std::vector<std::string> runs_with_dependencies() = 0;
  /// Whether any run has a dependency at all (most stores have none: then no change can
  /// concern a waiting run, and the look at each changed run can be skipped).
  virtual bool any() = 0;

  virtual std::optional<RunPoint> point(const std::string& run_id) = 0;
  /// Every member of the group, archived ones too.
  virtual std::vector<RunPoint> group_members(const std::string& group_id) = 0;
};

}  // namespace agentry::store
