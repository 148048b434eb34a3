#pragma once
// What creating, re-initializing and reconfiguring a run share (creation_commands.cpp,
// reinit_commands.cpp): the parent a run takes vars and a group from, the depth check,
// and how refusals and unknown template keys are reported.

#include "core/result.hpp"
#include "definitions/roots.hpp"
#include "engine/parent_completion/child_resume_limits.hpp"
#include "engine/run_inputs.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace agentry::store {
class Store;
}  // namespace agentry::store

namespace agentry::engine::detail {

/// A definition an untrusted project may not use: the answer names the project, so a
/// client (the dashboard) can offer to trust it.
core::Failure with_trust_details(core::Failure failure, const definitions::Roots& roots);

/// What a new run takes from its parent, read before the write transaction.
struct ParentInfo {
  boost::json::object vars;
  boost::json::object var_sources;
  int depth = 0;  // the parent's nesting depth (1: it has no parent)
  std::string run_group_id;  // a child joins it unless it names its own or opts out
};

/// VALIDATION_FAILED if the parent does not exist, or if a child of it would be nested
/// deeper than `max_depth`: a request for a run in the wrong place, like an unknown
/// parent, rather than an operation the parent's state forbids. With `limits`, also
/// when the parent has as many live children as it may.
core::Result<std::optional<ParentInfo>> parent_info(store::Store& db, const std::optional<std::string>& parent,
                                                    int max_depth, const ChildResumeLimits* limits = nullptr);

core::Result<void> check_call_depth(const ParentInfo& parent, const std::string& parent_id, int max_depth);

/// Placeholders left as written are worth a look (usually a typo, sometimes literal text
/// such as a CI snippet); they are in the run's audit too. Keys only: never values.
void log_unknown_template_keys(const std::string& run_id, const std::vector<UnknownTemplateKey>& keys);

}  // namespace agentry::engine::detail
