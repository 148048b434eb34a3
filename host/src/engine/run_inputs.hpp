#pragma once
// Turning definitions plus a caller's request into the inputs a run freezes:
// which agent and backend, the working directory, resolved vars, the rendered
// instructions and message, and the brief the agent receives first. Pure apart
// from reading definition files and checking the cwd exists.

#include "core/result.hpp"
#include "core/run.hpp"
#include "definitions/roots.hpp"
#include "engine/backend_catalog.hpp"
#include "engine/requests.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace agentry::engine {

struct RunInputContext {
  /// Where the run's definitions are read from, the project's trust decided
  /// (ProjectTrust::roots_for its definitionCwd).
  definitions::Roots roots;
  std::filesystem::path config_dir;
  std::filesystem::path state_dir;
  std::string run_id;
  std::string run_group_id;
  /// The parent's resolved vars, when the run has a parent (the `parent` var source).
  const boost::json::object* parent_vars = nullptr;
  /// Where the parent's vars came from (its frozen var_sources), so that a value the
  /// parent read from its environment stays redacted in the child.
  const boost::json::object* parent_var_sources = nullptr;
  std::string parent_run_id;
  /// Whether a directory missing here is one another member has (it declares a
  /// workspace root holding it, engine/placement/): the run is then accepted, to be
  /// claimed there. Unset: every working directory must exist here.
  std::function<bool(const std::string&)> cwd_only_elsewhere{};
  /// `{{agent_runner_cmd}}`: the command agents type for agent-runner's command set
  /// (engine::agent_runner_command); empty: "agent-runner".
  std::string agent_runner_cmd{};
};

/// A `{{key}}` no var or built-in key fills: left in the text as written.
struct UnknownTemplateKey {
  std::string key;
  std::string in;  // "agentInstructions", "assignmentInstructions", "message", "tasks.<id>.title", ...
};

/// { key, in } for audit records and logs.
boost::json::array to_json(const std::vector<UnknownTemplateKey>& keys);
/// "key (in), key (in)" for a log line.
std::string describe(const std::vector<UnknownTemplateKey>& keys);

struct ResolvedRunInputs {
  core::FrozenInputs frozen;
  std::string cwd;        // absolute, canonical
  std::string repo_root;  // the enclosing git work tree, or empty
  std::vector<core::Task> tasks;  // run_id and timestamps filled by the caller
  std::vector<UnknownTemplateKey> unknown_template_keys;
  /// The assignment's `schedule:` as written (null when none): init applies it.
  boost::json::value schedule;
};

core::Result<ResolvedRunInputs> resolve_run_inputs(const InitRequest& request, const RunInputContext& context,
                                                   const BackendCatalog& backends);

/// Renders `inputs` again from its frozen templates and vars, in its cwd: instructions,
/// message, callerInstructions, the brief and its tasks' titles and bodies (ids, order
/// and sources kept); the unknown template keys are replaced. For module prepare hooks,
/// which may change vars and cwd after resolve_run_inputs rendered them
/// (engine/hooks/prepare_at_init.hpp).
void render_run_inputs(ResolvedRunInputs& inputs, const RunInputContext& context);

/// A task's text rendered from the run's task templates.
struct RenderedTask {
  std::string id;
  std::string title;
  std::string body;
};

struct RenderedTexts {
  std::vector<RenderedTask> tasks;
  std::vector<UnknownTemplateKey> unknown_keys;
};

/// Re-resolves vars and re-renders instructions, message and task templates of an
/// initialized run. All-or-nothing: on error `frozen` is untouched.
core::Result<RenderedTexts> reconfigure_inputs(core::FrozenInputs& frozen, const ReconfigureRequest& request,
                                               const RunInputContext& context, const std::string& cwd);

/// The brief: agent instructions, assignment instructions and message, blank-line separated.
std::string compose_brief(const core::FrozenInputs& frozen);

/// The nearest ancestor of `dir` (inclusive) that contains `.git`, or empty.
std::string find_repo_root(const std::filesystem::path& dir);

}  // namespace agentry::engine
