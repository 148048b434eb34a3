#pragma once
// Where a run may execute. A run needs labels (its agent's or its start request's
// `placement: {labels}`) and its working directory; a member offers its labels
// (AGENTRY_LABELS), the workspace roots it has (AGENTRY_WORKSPACE_ROOTS) and room for
// live runs (AGENTRY_MAX_LIVE_RUNS). The member about to start a run asks misfit() of
// itself; a run nobody can take waits `ready`, saying why_nobody().

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::core {

struct PlacementNeeds {
  std::vector<std::string> labels;
  std::string cwd;  ///< absolute
};

struct MemberOffer {
  std::string name;
  std::vector<std::string> labels;
  /// Absolute, lexically normal directories; none: the member declares no roots and
  /// may have any directory.
  std::vector<std::string> workspace_roots;
  std::int64_t capacity = 0;  ///< 0: no limit
  std::int64_t live_runs = 0;
};

/// A label: 1-128 letters, digits and . _ - : = / (no comma, which separates them in
/// AGENTRY_LABELS).
bool is_valid_label(std::string_view label);

/// The labels `needs` asks for that `offer` lacks, in the order asked.
std::vector<std::string> missing_labels(const MemberOffer& offer, const PlacementNeeds& needs);
/// Whether `cwd` is one of `roots` or under one, compared lexically; true when there are no roots.
bool within_roots(const std::vector<std::string>& roots, std::string_view cwd);
bool at_capacity(const MemberOffer& offer);
/// Why `offer` cannot take the run now ("it lacks the label gpu", "it is at capacity
/// (2 of 2 live runs)"), or nullopt when it can.
std::optional<std::string> misfit(const MemberOffer& offer, const PlacementNeeds& needs);
/// Why none of `members` can take the run now, in a phrase that follows "waiting for a
/// member: ": the hard reasons (labels, then workspace) before capacity, which passes.
std::string why_nobody(const std::vector<MemberOffer>& members, const PlacementNeeds& needs);

/// A workspace root as AGENTRY_WORKSPACE_ROOTS gives it: absolute, made lexically normal
/// without a trailing '/'; empty when it is not absolute.
std::string normal_workspace_root(std::string_view path);

}  // namespace agentry::core
