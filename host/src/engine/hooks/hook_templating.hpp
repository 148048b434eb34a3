#pragma once
// Templated `with:` values of the built-ins in agent-runner's forms (git-worktree's
// {repo, from, branch, path}, command's {command, args, cwd}): rendered when the hook
// runs, with the run's vars as they stand and the keys agentry provides
// (definitions/template.hpp), so that `path: "{{worktree_path}}"` or `repo: "{{cwd}}"`
// mean what they say at that moment (after an earlier hook moved the cwd, say).

#include "core/run.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace agentry::engine {

/// The run's vars, then run_id, run_group_id, cwd (the run's, as it stands), state_dir
/// and assignment_name; repo_root (the work tree the run is in) unless a var has that
/// name.
boost::json::object hook_template_context(const core::Run& run, const std::filesystem::path& state_dir);

/// `options` with every string in it (in lists and maps too) rendered; placeholders of
/// keys the context lacks are left as written and added to `unknown` once each.
boost::json::object render_hook_options(const boost::json::object& options, const boost::json::object& context,
                                        std::vector<std::string>& unknown);

/// "unknown template key(s) 'a', 'b' (left as written)", or "" when none.
std::string describe_unknown_hook_keys(const std::vector<std::string>& unknown);

}  // namespace agentry::engine
