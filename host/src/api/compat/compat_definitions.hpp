#pragma once
// Our definition answers (definitions/json.hpp: DefinitionListResult and
// DefinitionDetail) as agent-runner's (W33, W34). Their dashboard validates a detail's
// `config` with their definition schemas, several of them strict, so the projection keeps
// only the members those schemas know and drops ours (description, notify, worktree,
// taskPrompt, unlockedFields, a launcher's env, a var's `env`).

#include <boost/json/object.hpp>

namespace agentry::api::compat {

/// `{kind, entries: [{name, path, root}], warnings: ["<path>: <field>: <message>"]}`;
/// launchers gain the built-in `direct` (root builtin, path null) first.
boost::json::object ref_definition_list(const boost::json::object& native_list);

/// One hook of ours `{id, phase, run?, builtin?, with?, when}` as their grouped entry
/// `{builtin, with?, when?}`: an executable hook is their `command` built-in with
/// `with.argv`; `when` keeps the keys theirs names (task → taskIds, from → fromStatus,
/// to → toStatus, session → sessionIndex) and drops the rest.
boost::json::object ref_hook_entry(const boost::json::object& native_hook);

/// The detail by kind: agent `{kind, config, instructions, sourcePath}`, assignment the
/// same, launcher `{kind, definition: {kind:"prefix", name, command, args, sourcePath,
/// root:"config", config}}`, task `{kind:"task", task: {id, title, body, hooks},
/// sourcePath}`. Any other kind (environments) answers the native object unchanged.
boost::json::object ref_definition_detail(const boost::json::object& native_detail);

/// The built-in `direct` launcher's detail (their launchers.get for "direct").
boost::json::object ref_direct_launcher_detail();

}  // namespace agentry::api::compat
