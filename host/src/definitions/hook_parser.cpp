// `hooks:` on assignments and task definitions: a list of
// { id?, phase, when?, run: [argv] | builtin: name | name: module | path: module, with?,
// timeoutSec? }, or the same grouped by phase. See docs/definitions.md "Hooks".

#include "definitions/field_reader.hpp"
#include "definitions/parsers.hpp"
#include "definitions/project_trust.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace fs = std::filesystem;

namespace agentry::definitions {
namespace {

constexpr std::string_view builtins[] = {core::builtin_command, core::builtin_git_worktree,
                                         core::builtin_require_children_success};

std::string phase_list() {
  return "prepare, beforeAttempt, afterAttempt, afterExit or taskTransition";
}

// agent-runner's order of a named module's file names.
constexpr std::string_view module_file_names[] = {"hook.ts", "hook.mts", "hook.js", "hook.mjs"};

bool valid_module_name(std::string_view name) {
  if (name.empty() || name.size() > 128 || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.';
  });
}

/// `name: <n>`: the first of hooks/<n>/hook.{ts,mts,js,mjs} under a trusted project's
/// .agentry/ (when the definition is the project's), then the config directory.
/// Empty (with an error naming every file tried) when none exists.
std::string resolve_named_module(const std::string& name, const std::string& field, const fs::path& file,
                                 const Roots& roots, Diagnostics& diag) {
  if (!valid_module_name(name)) {
    diag.error(field, "'" + name + "' is not a hook name (1-128 letters, digits, '.', '_', '-')");
    return {};
  }
  std::vector<fs::path> dirs;
  if (roots.project_dir && roots.project_trusted && is_project_file(file, roots))
    dirs.push_back(*roots.project_dir / ".agentry" / "hooks" / name);
  dirs.push_back(roots.config_dir / "hooks" / name);
  std::string tried;
  for (const auto& dir : dirs)
    for (auto candidate : module_file_names) {
      std::error_code ec;
      const fs::path path = dir / candidate;
      if (fs::is_regular_file(path, ec)) return path.lexically_normal().string();
      tried += (tried.empty() ? "" : ", ") + path.string();
    }
  diag.error(field, "hook module '" + name + "' was not found (tried " + tried + ")");
  return {};
}

/// `path: <p>`: relative to the definition file's directory.
std::string resolve_module_path(const std::string& path, const std::string& field, const fs::path& file,
                                Diagnostics& diag) {
  fs::path resolved = fs::path(path).is_absolute() ? fs::path(path) : file.parent_path() / path;
  resolved = resolved.lexically_normal();
  std::error_code ec;
  if (!fs::is_regular_file(resolved, ec)) {
    diag.error(field, "hook module " + resolved.string() + " was not found");
    return {};
  }
  return resolved.string();
}

bool valid_hook_id(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  return std::all_of(id.begin(), id.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.';
  });
}

/// require-children-success takes `with: {requireAny: true|false}` and nothing else.
bool check_require_children_options(const core::HookSpec& hook, FieldReader& reader, Diagnostics& diag) {
  bool ok = true;
  for (const auto& [key, value] : hook.options) {
    if (key != "requireAny") {
      diag.error(reader.field("with." + std::string(key)),
                 "is not an option of require-children-success (its only option is requireAny)");
      ok = false;
    } else if (!value.is_bool()) {
      diag.error(reader.field("with.requireAny"), "must be true or false");
      ok = false;
    }
  }
  return ok;
}

/// agent-runner's form of the command built-in: with: {mode: status|json, command,
/// args?, cwd?}; its keys select it, and our `argv` may not be mixed in.
bool check_command_form_options(const core::HookSpec& hook, FieldReader& reader, Diagnostics& diag) {
  bool ok = true;
  auto refuse = [&](const std::string& key, const std::string& why) {
    diag.error(reader.field("with." + key), why);
    ok = false;
  };
  for (const auto& [key, value] : hook.options) {
    if (key == "argv")
      refuse("argv", "mixes the command built-in's two forms: use either {argv} or {mode, command, args, cwd}");
    else if (key != "mode" && key != "command" && key != "args" && key != "cwd")
      refuse(std::string(key), "is not an option of the command built-in (mode, command, args, cwd)");
  }
  const auto* mode = hook.options.if_contains("mode");
  if (!mode || !mode->is_string() || (mode->as_string() != "status" && mode->as_string() != "json"))
    refuse("mode", "must be status or json");
  const auto* command = hook.options.if_contains("command");
  if (!command || !command->is_string() || command->as_string().empty())
    refuse("command", "must name the executable to run");
  if (const auto* args = hook.options.if_contains("args")) {
    bool strings = args->is_array();
    if (strings)
      for (const auto& a : args->as_array()) strings = strings && a.is_string();
    if (!strings) refuse("args", "must be a list of strings");
  }
  if (const auto* cwd = hook.options.if_contains("cwd"); cwd && (!cwd->is_string() || cwd->as_string().empty()))
    refuse("cwd", "must be a directory path");
  return ok;
}

bool has_placeholder(const boost::json::value& v) {
  return v.is_string() && std::string_view(v.as_string()).find("{{") != std::string_view::npos;
}

/// agent-runner's form of git-worktree: with: {repo, from, branch, path, collision?}, the
/// first four strings (templated when the hook runs, so a path is checked here only when
/// it names no template key), collision fail | reuse | replace.
bool check_git_worktree_repo_form(const core::HookSpec& hook, FieldReader& reader, Diagnostics& diag) {
  bool ok = true;
  auto refuse = [&](const std::string& key, const std::string& why) {
    diag.error(reader.field("with." + key), why);
    ok = false;
  };
  for (const auto& [key, value] : hook.options)
    if (key == "base")
      refuse("base", "mixes git-worktree's two forms: use either {base} or {repo, from, branch, path, collision}");
    else if (key != "repo" && key != "from" && key != "branch" && key != "path" && key != "collision")
      refuse(std::string(key), "is not an option of git-worktree's {repo, from, branch, path, collision} form");
  for (const char* key : {"repo", "from", "branch", "path"}) {
    const auto* v = hook.options.if_contains(key);
    if (!v || !v->is_string() || v->as_string().empty()) {
      refuse(key, "is required: a string (it may name template keys such as {{cwd}})");
    } else if ((std::string_view(key) == "repo" || std::string_view(key) == "path") && !has_placeholder(*v) &&
               !fs::path(std::string(v->as_string())).is_absolute()) {
      refuse(key, "must be an absolute path (got '" + std::string(v->as_string()) + "')");
    }
  }
  if (const auto* c = hook.options.if_contains("collision");
      c && (!c->is_string() || (c->as_string() != "fail" && c->as_string() != "reuse" && c->as_string() != "replace")))
    refuse("collision", "must be fail, reuse or replace");
  return ok;
}

/// git-worktree in agentry's form takes `with: {base: <revision>}` only; agent-runner's
/// keys select its other form.
bool check_git_worktree_options(const core::HookSpec& hook, FieldReader& reader, Diagnostics& diag) {
  if (core::is_git_worktree_repo_form(hook)) return check_git_worktree_repo_form(hook, reader, diag);
  bool ok = true;
  for (const auto& [key, value] : hook.options) {
    if (key == "base") {
      if (!value.is_string() || value.as_string().empty()) {
        diag.error(reader.field("with.base"), "must be a revision (a branch, tag or commit)");
        ok = false;
      }
    } else {
      diag.error(reader.field("with." + std::string(key)),
                 "is not an option of git-worktree (agentry's form takes base; agent-runner's repo, from, branch, "
                 "path, collision)");
      ok = false;
    }
  }
  return ok;
}

std::optional<core::HookSpec> read_hook(const YamlNode& node, const std::string& field, std::size_t index,
                                        std::optional<core::HookPhase> implied, const std::string& origin, const fs::path& file, const Roots& roots,
                                        Diagnostics& diag) {
  if (!node.is_map()) {
    diag.error(field, "must be a map { phase, run | builtin, ... }, not " + std::string(describe_kind(node)));
    return std::nullopt;
  }
  FieldReader reader(node, field, diag);
  core::HookSpec hook;
  hook.origin = origin;
  hook.source_path = file.string();
  bool ok = true;
  const std::string phase_text =
      implied ? reader.string("phase").value_or(std::string(core::to_string(*implied))) : reader.required_string("phase");
  if (auto phase = core::parse_hook_phase(phase_text); phase && (!implied || *phase == *implied)) {
    hook.phase = *phase;
  } else if (phase) {
    diag.error(reader.field("phase"), "is " + phase_text + " but the hook is listed under " +
                                          std::string(core::to_string(*implied)));
    ok = false;
  } else {
    if (!phase_text.empty()) diag.error(reader.field("phase"), "'" + phase_text + "' is not a phase; use " + phase_list());
    ok = false;
  }
  hook.id = reader.string("id").value_or(std::string(core::to_string(hook.phase)) + "-" + std::to_string(index));
  if (!valid_hook_id(hook.id)) {
    diag.error(reader.field("id"), "'" + hook.id + "' is not a hook id (1-64 letters, digits, '.', '_', '-')");
    ok = false;
  }
  auto run = reader.string_list("run");
  auto builtin = reader.string("builtin");
  auto module_name = reader.string("name");
  auto module_file = reader.string("path");
  const int kinds = int(run.has_value()) + int(builtin.has_value()) + int(module_name.has_value()) +
                    int(module_file.has_value());
  if (kinds > 1) {
    diag.error(field, "has more than one of 'run', 'builtin', 'name' and 'path'; a hook is exactly one of them");
    ok = false;
  } else if (kinds == 0) {
    diag.error(field,
               "needs 'run: [executable, args...]', 'builtin: <name>', or a JavaScript module as 'name: <hook>' "
               "or 'path: <file>'");
    ok = false;
  }
  if (kinds == 1 && (module_name || module_file)) {
    const std::string key = module_name ? "name" : "path";
    if (refuse_if_untrusted(file, roots, diag, reader.field(key),
                            "is a JavaScript module hook, which runs code (declare it in the config directory, "
                            "or trust the project)")) {
      ok = false;
    } else {
      hook.module_path = module_name ? resolve_named_module(*module_name, reader.field(key), file, roots, diag)
                                     : resolve_module_path(*module_file, reader.field(key), file, diag);
      hook.module_source = key + ":" + (module_name ? *module_name : *module_file);
      if (hook.module_path.empty()) ok = false;
    }
  }
  if (const YamlNode* with = reader.take("with")) {
    auto value = to_json(*with);
    if (!value.is_object()) {
      diag.error(reader.field("with"), "must be a map of options");
      ok = false;
    } else {
      hook.options = value.as_object();
    }
  }
  if (builtin) {
    if (std::find(std::begin(builtins), std::end(builtins), *builtin) == std::end(builtins)) {
      diag.error(reader.field("builtin"), "'" + *builtin + "' is not a built-in hook; use command, git-worktree or require-children-success");
      ok = false;
    }
    hook.builtin = *builtin;
    if (*builtin == core::builtin_command && core::is_command_status_or_json_form(hook)) {
      if (!check_command_form_options(hook, reader, diag)) ok = false;
      if (refuse_if_untrusted(file, roots, diag, field,
                              "runs an executable (declare the hook in the config directory, or trust the project)"))
        ok = false;
    } else if (*builtin == core::builtin_command) {
      // `builtin: command` is `run:` spelled with options: with: {argv: [...]}.
      const auto* argv = hook.options.if_contains("argv");
      if (argv && argv->is_array())
        for (const auto& a : argv->as_array())
          if (a.is_string()) hook.run.emplace_back(a.as_string());
      if (hook.run.empty()) {
        diag.error(reader.field("with.argv"), "the command built-in needs with: {argv: [executable, args...]}");
        ok = false;
      }
    }
    if (*builtin == core::builtin_git_worktree && !check_git_worktree_options(hook, reader, diag)) ok = false;
    if (*builtin == core::builtin_git_worktree && core::is_git_worktree_repo_form(hook)) {
      if (hook.phase != core::HookPhase::prepare && hook.phase != core::HookPhase::before_attempt) {
        diag.error(reader.field("phase"), "git-worktree in its {repo, from, branch, path} form runs at prepare or "
                                          "beforeAttempt only");
        ok = false;
      }
      // It writes where the file says and may replace a worktree there: not for a file
      // agentry has no reason to trust.
      if (refuse_if_untrusted(file, roots, diag, reader.field("with"),
                              "is git-worktree's {repo, from, branch, path} form, which makes a worktree at a path "
                              "the file names (declare the hook in the config directory, or trust the project)"))
        ok = false;
    } else if (*builtin == core::builtin_git_worktree && hook.phase != core::HookPhase::prepare) {
      diag.error(reader.field("phase"), "git-worktree runs at prepare only (in agentry's {base} form)");
      ok = false;
    }
    if (*builtin == core::builtin_require_children_success && hook.phase != core::HookPhase::after_exit &&
        hook.phase != core::HookPhase::task_transition) {
      diag.error(reader.field("phase"), "require-children-success runs at afterExit or taskTransition only");
      ok = false;
    }
    if (*builtin == core::builtin_require_children_success && !check_require_children_options(hook, reader, diag))
      ok = false;
  }
  if (run) {
    if (run->empty() || run->front().empty()) {
      diag.error(reader.field("run"), "must name an executable first");
      ok = false;
    } else {
      hook.run = *run;
    }
  }
  if (!hook.run.empty()) {
    if (refuse_if_untrusted(file, roots, diag, field,
                            "runs an executable (declare the hook in the config directory, or trust the project)"))
      ok = false;
    // "./x.sh" is next to the definition; a bare name is looked up in PATH when it runs.
    std::string& exe = hook.run.front();
    if (exe.find('/') != std::string::npos && !fs::path(exe).is_absolute())
      exe = (file.parent_path() / exe).lexically_normal().string();
  }
  if (auto timeout = reader.integer("timeoutSec", 1, core::max_hook_timeout_sec))
    hook.timeout_sec = static_cast<int>(*timeout);
  else if (hook.is_module())
    hook.timeout_sec = 0;  // agent-runner's modules name none: AGENTRY_MODULE_HOOK_TIMEOUT_SEC
  if (const YamlNode* when = reader.take("when"))
    if (!read_hook_when(*when, reader.field("when"), hook, diag)) ok = false;
  reader.warn_unknown_keys();
  if (!ok) return std::nullopt;
  return hook;
}

}  // namespace

std::optional<core::HookSpec> read_worktree_option(FieldReader& reader, const std::string& origin,
                                                   const fs::path& file) {
  const YamlNode* node = reader.take("worktree");
  if (node == nullptr) return std::nullopt;
  core::HookSpec hook;
  hook.id = "worktree";
  hook.phase = core::HookPhase::prepare;
  hook.builtin = core::builtin_git_worktree;
  hook.origin = origin;
  hook.source_path = file.string();
  if (node->is_scalar()) {
    auto on = read_boolean(*node, reader.field("worktree"), reader.diag());
    if (!on || !*on) return std::nullopt;
    return hook;
  }
  if (!node->is_map()) {
    reader.diag().error(reader.field("worktree"), "must be true, false or a map {base: <revision>}");
    return std::nullopt;
  }
  FieldReader options(*node, reader.field("worktree"), reader.diag());
  if (auto base = options.string("base")) hook.options["base"] = *base;
  options.warn_unknown_keys();
  return hook;
}

std::vector<core::HookSpec> read_hooks(const YamlNode& node, const std::string& field, const std::string& origin,
                                       const fs::path& file, const Roots& roots, Diagnostics& diag) {
  std::vector<core::HookSpec> out;
  std::set<std::string> seen;
  std::size_t index = 0;
  auto add = [&](const YamlNode& item, const std::string& item_field, std::optional<core::HookPhase> implied) {
    auto hook = read_hook(item, item_field, index++, implied, origin, file, roots, diag);
    if (!hook) return;
    if (!seen.insert(hook->id).second) {
      diag.error(item_field, "duplicate hook id '" + hook->id + "'");
      return;
    }
    out.push_back(std::move(*hook));
  };
  if (node.is_sequence()) {
    // A task's hooks are taskTransition hooks: agent-runner's task entries name no phase.
    const auto implied = origin.rfind("task:", 0) == 0 ? std::optional(core::HookPhase::task_transition) : std::nullopt;
    for (std::size_t i = 0; i < node.items.size(); ++i) add(node.items[i], index_field(field, i), implied);
  } else if (node.is_map()) {
    // The grouped form: { <phase>: [hook, ...] }.
    for (const auto& [key, list] : node.entries) {
      const std::string list_field = join_field(field, key);
      auto phase = core::parse_hook_phase(key);
      if (!phase) {
        diag.error(list_field, "'" + key + "' is not a phase; use " + phase_list());
        continue;
      }
      if (!list.is_sequence()) {
        diag.error(list_field, "must be a list of hooks, not " + std::string(describe_kind(list)));
        continue;
      }
      // Ids count within the phase, as agent-runner numbers its entries: beforeAttempt-0.
      index = 0;
      for (std::size_t i = 0; i < list.items.size(); ++i) add(list.items[i], index_field(list_field, i), phase);
    }
  } else {
    diag.error(field, "must be a list of hooks (or a map of phase to hooks), not " + std::string(describe_kind(node)));
  }
  return out;
}

}  // namespace agentry::definitions
