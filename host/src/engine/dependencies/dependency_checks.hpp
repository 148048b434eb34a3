#pragma once
// Evaluating run dependencies against the store: whether each is met, who waits on a
// run, the start gate, and the cycle check (group membership counts: a run that waits
// on a group waits on every member). All of it runs inside the caller's read snapshot
// or write transaction, so a decision and the write it leads to see the same state.

#include "core/dependency.hpp"
#include "core/result.hpp"
#include "core/run.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace agentry::store {
class Transaction;
}  // namespace agentry::store

namespace agentry::engine::detail {

/// How many dependencies one run may have.
inline constexpr std::size_t max_dependencies_per_run = 64;

core::DependencyStatus evaluate_dependency(store::Transaction& c, const core::Dependency& dependency);
std::vector<core::DependencyStatus> evaluate_dependencies(store::Transaction& c,
                                                          const std::vector<core::Dependency>& dependencies);
/// The run's dependencies, evaluated (for summaries and views).
std::vector<core::DependencyStatus> dependencies_of(store::Transaction& c, const std::string& run_id);
/// The runs that wait on `run`: on it by id, or on its group while it is not archived.
std::vector<core::Dependent> dependents_of(store::Transaction& c, const core::Run& run);
/// "run:abc (running)", "group:wave (1 of 2 succeeded)": for messages.
std::string describe_status(const core::DependencyStatus& status);

/// CONFLICT naming each unmet dependency: a run may start (or resume) only once all are met.
core::Result<void> check_dependencies_met(store::Transaction& c, const core::Run& run, std::string_view operation);

/// Checks and stores a new dependency of `run`: its target is well formed, not the run
/// itself, not a duplicate, and does not close a cycle. Nothing is written on refusal.
core::Result<core::Dependency> add_dependency_row(store::Transaction& c, const core::Run& run,
                                                  core::Dependency dependency);

/// CONFLICT naming the cycle when the stored graph leads from `run_id` back to it.
core::Result<void> check_no_cycle(store::Transaction& c, const std::string& run_id);

}  // namespace agentry::engine::detail
