#include "engine/hooks/hook_runner.hpp"

#include "engine/attachments.hpp"
#include "engine/hooks/command_hook.hpp"
#include "engine/hooks/git_worktree_hook.hpp"
#include "engine/hooks/hook_process.hpp"
#include "engine/hooks/hook_templating.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/utf8.hpp"
#include "engine/mutation_support.hpp"
#include "process/runner.hpp"
#include "store/store.hpp"
#include "store/hook_audit_repository.hpp"
#include "store/attachment_repository.hpp"
#include "store/task_repository.hpp"
#include "store/transaction.hpp"
#include "store/run_repository.hpp"
#include "store/session_repository.hpp"
#include "core/json_strings.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>

namespace agentry::engine {
namespace json = boost::json;
namespace {

json::object run_brief(const core::Run& run) {
  return {{"runId", run.id},
          {"name", core::text_or_null(run.name)},
          {"status", core::to_string(run.status)},
          {"agent", run.frozen.agent_name},
          {"assignment", run.frozen.assignment_name},
          {"backend", run.frozen.backend},
          {"cwd", run.cwd},
          {"repo", run.repo_root.empty() ? json::value(nullptr) : json::value(run.repo_root)},
          {"parentRunId", core::text_or_null(run.parent_run_id)},
          {"runGroupId", run.run_group_id},
          {"pinned", run.pinned}};
}

bool gates(core::HookPhase phase) {
  return phase == core::HookPhase::prepare || phase == core::HookPhase::before_attempt ||
         phase == core::HookPhase::task_transition;
}

/// A hook's verdict, from its stdout. nullopt with `error` set when it is not one.
struct Verdict {
  std::optional<std::string> block, refuse, prompt, name, note;
  std::optional<bool> pinned;
  bool reinvoke = false;  // a module's reinvoke at afterAttempt: one more attempt
  std::vector<std::pair<std::string, std::string>> attachments;  // path, name ("": the file's)
  HookAttachmentChanges attachment_changes;                       // a module result's mutate.attachments
};

constexpr std::size_t max_hook_attachments = 10;

/// `attachments: ["path" | {path, name?}]`; `error` set when malformed.
void parse_attachments(const json::value& field, Verdict& v, std::string& error) {
  if (field.is_null()) return;
  if (!field.is_array() || field.as_array().size() > max_hook_attachments) {
    error = "'attachments' must be a list of at most " + std::to_string(max_hook_attachments) + " files";
    return;
  }
  for (const auto& item : field.as_array()) {
    if (item.is_string() && !item.as_string().empty()) {
      v.attachments.emplace_back(std::string(item.as_string()), "");
    } else if (auto* o = item.if_object(); o && o->if_contains("path") && o->at("path").is_string()) {
      const auto* name = o->if_contains("name");
      v.attachments.emplace_back(std::string(o->at("path").as_string()),
                                 name && name->is_string() ? std::string(name->as_string()) : std::string());
    } else {
      error = "each of 'attachments' must be a path or {path, name?}";
      return;
    }
  }
}

/// Copies each file the hook named into the run's attachments; what could not be
/// attached is said in the audit's message (it does not fail the hook).
void attach_files(const core::Run& run, const std::vector<std::pair<std::string, std::string>>& files,
                  const HookServices& services, core::HookAudit& audit) {
  std::vector<std::string> problems;
  int attached = 0;
  for (const auto& [raw, name] : files) {
    std::filesystem::path path(raw);
    if (path.is_relative()) path = std::filesystem::path(run.cwd) / path;
    auto added = services.attachments
                     ? services.attachments->add_file(run.id, path, name.empty() ? path.filename().string() : name,
                                                      hook_actor)
                     : core::Result<core::Attachment>(core::fail(core::ErrorCode::internal, "attachments are off"));
    if (added) ++attached;
    else problems.push_back(raw + ": " + added.error().message);
  }
  std::string said = "attached " + std::to_string(attached) + " of " + std::to_string(files.size()) + " files";
  for (const auto& p : problems) said += "; " + p;
  audit.message = audit.message.empty() ? said : audit.message + "; " + said;
}

std::optional<Verdict> parse_verdict(const std::string& out, std::string& error) {
  Verdict v;
  std::string_view text = out;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  if (text.empty()) return v;
  boost::system::error_code ec;
  auto value = json::parse(text, ec);
  if (ec || !value.is_object()) {
    error = "its output is not a JSON object";
    return std::nullopt;
  }
  const auto& o = value.as_object();
  auto text_field = [&](const char* key, std::optional<std::string>& into) {
    if (auto* f = o.if_contains(key)) {
      if (f->is_string()) into = core::sanitize_utf8(f->as_string());
      else if (!f->is_null()) error = std::string("'") + key + "' must be a string";
    }
  };
  text_field("block", v.block);
  text_field("refuse", v.refuse);
  text_field("prompt", v.prompt);
  text_field("name", v.name);
  text_field("note", v.note);
  if (auto* f = o.if_contains("pinned")) {
    if (f->is_bool()) v.pinned = f->as_bool();
    else if (!f->is_null()) error = "'pinned' must be true or false";
  }
  if (auto* f = o.if_contains("attachments"); f && error.empty()) parse_attachments(*f, v, error);
  if (!error.empty()) return std::nullopt;
  return v;
}

std::map<std::string, std::string> environment_of(const core::Run& run, const core::HookSpec& hook) {
  return {{"AGENTRY_RUN_ID", run.id},
          {"AGENTRY_HOOK_ID", hook.id},
          {"AGENTRY_HOOK_PHASE", std::string(core::to_string(hook.phase))}};
}

void run_executable(const core::Run& run, const core::HookSpec& hook, const json::object& input,
                    const HookServices& services, core::HookAudit& audit, Verdict& verdict) {
  process::RunRequest request;
  request.argv = hook.run;
  request.stdin_data = json::serialize(input);
  for (auto& [k, v] : environment_of(run, hook)) request.env.emplace_back(k, v);
  std::error_code ec;
  if (!run.cwd.empty() && std::filesystem::is_directory(run.cwd, ec)) request.cwd = run.cwd;
  auto result = run_hook_process(request, {hook.timeout_sec, hook_max_stdout_bytes, {}}, services.cancelled, audit);
  if (!result) return;
  if (*result->exit_code != 0) {
    audit.outcome = "failed";
    audit.message = result->error;
    return;
  }
  if (result->stdout_truncated) {
    audit.outcome = "failed";
    audit.message = hook_output_too_long_message();
    return;
  }
  std::string error;
  auto parsed = parse_verdict(result->stdout_text, error);
  if (!parsed) {
    audit.outcome = "failed";
    audit.message = error;
    return;
  }
  verdict = std::move(*parsed);
  audit.outcome = "ok";
}

void run_require_children_success(const core::Run& run, const core::HookSpec& hook, const HookServices& services,
                                  core::HookAudit& audit, Verdict& verdict) {
  auto children = services.db.read(
      [&](store::Transaction& c) -> core::Result<std::vector<std::pair<std::string, std::string>>> {
        return c.runs().child_statuses(run.id);
      });
  if (!children) {
    audit.outcome = "failed";
    audit.message = children.error().message;
    return;
  }
  audit.outcome = "ok";
  const auto* require_any = hook.options.if_contains("requireAny");
  if (children->empty() && require_any && require_any->is_bool() && require_any->as_bool()) {
    verdict.refuse = "this run has no child run yet (requireAny)";
    return;
  }
  std::vector<std::string> not_done;
  for (const auto& [id, status] : *children)
    if (status != "success") not_done.push_back(id + " (" + status + ")");
  if (not_done.empty()) return;
  std::string list;
  for (const auto& s : not_done) list += (list.empty() ? "" : ", ") + s;
  verdict.refuse = "not every child run ended in success: " + list;
}

bool filters_on(const core::Run& run, core::HookPhase phase, std::string_view key) {
  for (const auto& h : run.frozen.hooks)
    if (h.phase == phase && (h.when.count(std::string(key)) != 0 || h.is_module())) return true;  // modules are told it
  return false;
}

/// What module hooks are told besides the run: read once per phase, when the first
/// module hook is about to run.
ModuleHookInputs read_module_inputs(const core::Run& run, const HookServices& services) {
  ModuleHookInputs in;
  auto read = services.db.read([&](store::Transaction& c) -> core::Result<bool> {
    in.state = run_hook_data(c, run.id);
    in.tasks = c.tasks().list(run.id);
    in.attachments = c.attachments().list_for_run(run.id);
    return true;
  });
  if (!read) core::log_warn("cannot read what module hooks are told", {{"runId", run.id}, {"error", read.error().message}});
  return in;
}

/// A module hook's result (or the command built-in's, in agent-runner's form) as the
/// verdict executable hooks give, plus its state and task patches; a patch of a task
/// the run does not have is dropped, and the audit says so.
void apply_module_result(const core::HookSpec& hook, const json::value& answer, ModuleHookInputs& inputs,
                         core::HookAudit& audit, Verdict& verdict, HookPhaseResult& result) {
  auto mapped = map_module_result(hook.phase, answer);
  if (mapped.failure) {
    audit.outcome = "failed";
    audit.message = *mapped.failure;
    return;
  }
  if (mapped.block) {
    if (hook.phase == core::HookPhase::task_transition || hook.phase == core::HookPhase::after_exit)
      verdict.refuse = mapped.block;
    else
      verdict.block = mapped.block;
  }
  verdict.prompt = mapped.prompt;
  verdict.reinvoke = mapped.reinvoke;
  verdict.note = mapped.note;
  verdict.pinned = mapped.pinned;
  verdict.attachment_changes = std::move(mapped.attachments);
  for (const auto& [key, value] : mapped.state) {
    result.state[key] = value;
    inputs.state[key] = value;  // later hooks of the phase see it
  }
  std::vector<std::string> unknown;
  for (auto& patch : mapped.patch_tasks) {
    const bool known = std::any_of(inputs.tasks.begin(), inputs.tasks.end(),
                                   [&](const core::Task& t) { return t.id == patch.task_id; });
    if (known) result.patch_tasks.push_back(std::move(patch));
    else unknown.push_back(patch.task_id);
  }
  if (!unknown.empty()) {
    std::string list;
    for (const auto& id : unknown) list += (list.empty() ? "" : ", ") + id;
    audit.message = "patchTasks: no task " + list + " in this run; not patched";
  }
}

void run_module(const core::Run& run, const core::HookSpec& hook, const HookInvocation& inv,
                const std::map<std::string, std::string>& facts, const HookServices& services,
                std::optional<ModuleHookInputs>& inputs, const std::string& prompt, core::HookAudit& audit,
                Verdict& verdict, HookPhaseResult& result) {
  if (!inputs) inputs = read_module_inputs(run, services);
  inputs->prompt = prompt;
  inputs->attempt_index_in_session.reset();
  if (auto it = facts.find("attemptIndexInSession"); it != facts.end()) inputs->attempt_index_in_session = std::stoi(it->second);
  auto answer = run_module_hook(run, hook, module_hook_context(run, hook, inv, *inputs), services.cancelled, audit);
  if (answer) apply_module_result(hook, *answer, *inputs, audit, verdict, result);
}

/// agent-runner's form of the command built-in: its answer is a module hook's result.
void run_command_form(const core::Run& run, const core::HookSpec& hook, const HookServices& services,
                      std::optional<ModuleHookInputs>& inputs, core::HookAudit& audit, Verdict& verdict,
                      HookPhaseResult& result) {
  // Its values are templated now, as git-worktree's are (hook_templating.hpp).
  core::HookSpec templated = hook;
  std::vector<std::string> unknown;
  templated.options = render_hook_options(hook.options, hook_template_context(run, services.state_dir), unknown);
  auto answer = run_command_form_hook(run, templated, services.cancelled, audit);
  if (!unknown.empty())
    audit.message = audit.message.empty() ? describe_unknown_hook_keys(unknown)
                                          : audit.message + "; " + describe_unknown_hook_keys(unknown);
  if (!answer) return;
  if (!inputs) inputs = read_module_inputs(run, services);
  apply_module_result(hook, *answer, *inputs, audit, verdict, result);
}

/// agent-runner's attempt filters (`sessionIndex`, `attemptIndexInSession`) as facts: the
/// attempt's place in its session comes from its record, which also holds for an
/// attempt a restarted daemon adopted. Read only when some hook filters on it.
std::map<std::string, std::string> facts_with_attempt(const core::Run& run, const HookInvocation& inv,
                                                      const HookServices& services) {
  auto facts = inv.facts;
  if (!inv.session_index) return facts;
  facts["sessionIndex"] = std::to_string(*inv.session_index);
  if (!filters_on(run, inv.phase, "attemptIndexInSession")) return facts;
  auto attempts = services.db.read([&](store::Transaction& c) -> core::Result<std::vector<core::Attempt>> {
    return c.sessions().list_attempts(run.id);
  });
  if (!attempts) return facts;
  std::optional<int> index;
  for (const auto& a : *attempts) {
    if (a.session_index != *inv.session_index) continue;
    // The named attempt, or (afterExit) the session's last one.
    if (inv.attempt_number ? a.number == *inv.attempt_number : (!index || a.index_in_session > *index))
      index = a.index_in_session;
  }
  if (index) facts["attemptIndexInSession"] = std::to_string(*index);
  return facts;
}

/// The order hooks of a phase run in: declaration order, except that at taskTransition a
/// task's own hooks run before the assignment's (agent-runner's order: the narrower
/// gate first).
std::vector<const core::HookSpec*> in_running_order(const core::Run& run, core::HookPhase phase) {
  std::vector<const core::HookSpec*> out;
  for (const auto& h : run.frozen.hooks)
    if (h.phase == phase && !runs_at_init(h)) out.push_back(&h);
  if (phase == core::HookPhase::task_transition)
    std::stable_partition(out.begin(), out.end(), [](const core::HookSpec* h) { return h->origin.rfind("task:", 0) == 0; });
  return out;
}

}  // namespace

bool runs_at_init(const core::HookSpec& hook) { return hook.phase == core::HookPhase::prepare && hook.is_module(); }

bool after_attempt_may_reinvoke(const core::Run& run) {
  for (const auto& h : run.frozen.hooks)
    if (h.phase == core::HookPhase::after_attempt && (h.is_module() || core::is_command_status_or_json_form(h)))
      return true;
  return false;
}

bool has_hooks(const core::Run& run, core::HookPhase phase) {
  for (const auto& h : run.frozen.hooks)
    if (h.phase == phase && !runs_at_init(h)) return true;
  return false;
}

HookPhaseResult run_hooks(const core::Run& run, const HookInvocation& inv, const HookServices& services) {
  HookPhaseResult result;
  std::string prompt = inv.prompt;
  const auto facts = facts_with_attempt(run, inv, services);
  std::optional<ModuleHookInputs> module_inputs;
  // The run as the phase's hooks left it so far: a git-worktree hook moves its cwd (and,
  // at prepare, sets worktree_path) for the hooks after it.
  std::optional<core::Run> moved;
  const auto source = facts.find("source");
  for (const auto* hook_ptr : in_running_order(run, inv.phase)) {
    const auto& hook = *hook_ptr;
    const core::Run& current = moved ? *moved : run;
    if (hook.phase != inv.phase || !core::hook_matches(hook, facts)) continue;
    // A task definition's hooks see only their own task's transitions.
    if (hook.origin.rfind("task:", 0) == 0 && (!inv.task_id || hook.origin.substr(5) != *inv.task_id)) continue;
    // Appended notes and added tasks are judged by agent-runner's kinds of hook only.
    if (inv.phase == core::HookPhase::task_transition && source != facts.end() &&
        !core::judges_task_source(hook, source->second))
      continue;
    core::HookAudit audit;
    audit.hook_id = hook.id;
    audit.phase = hook.phase;
    audit.created_at = core::now_iso8601();
    Verdict verdict;
    const auto started = std::chrono::steady_clock::now();
    std::optional<std::string> cancelled = services.cancelled ? services.cancelled() : std::nullopt;
    if (cancelled) {
      // Stopped before it started: recorded, so the audit shows every hook the phase had.
      audit.outcome = "cancelled";
      audit.message = *cancelled + "; not started";
    } else if (!hook.run.empty()) {
      json::object input = inv.info;
      input["phase"] = core::to_string(inv.phase);
      input["hookId"] = hook.id;
      input["run"] = run_brief(current);
      input["options"] = hook.options;
      if (inv.phase == core::HookPhase::before_attempt) input["prompt"] = prompt;
      run_executable(current, hook, input, services, audit, verdict);
    } else if (core::is_command_status_or_json_form(hook)) {
      run_command_form(current, hook, services, module_inputs, audit, verdict, result);
    } else if (hook.is_module()) {
      run_module(current, hook, inv, facts, services, module_inputs, prompt, audit, verdict, result);
    } else if (hook.builtin == core::builtin_require_children_success) {
      run_require_children_success(current, hook, services, audit, verdict);
    } else if (hook.builtin == core::builtin_git_worktree) {
      run_git_worktree(current, hook, services, audit, result);
      if (audit.outcome == "ok" && result.worktree) {
        if (!moved) moved = run;
        moved->cwd = std::string(result.worktree->at("cwd").as_string());
        moved->repo_root = std::string(result.worktree->at("path").as_string());
        if (result.worktree_path_var) moved->frozen.vars["worktree_path"] = *result.worktree_path_var;
      }
    } else {
      audit.outcome = "failed";
      audit.message = "unknown built-in '" + hook.builtin + "'";
    }
    if (audit.duration_ms == 0)
      audit.duration_ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    if (audit.outcome == "ok") {
      if (verdict.prompt && inv.phase == core::HookPhase::before_attempt) prompt = *verdict.prompt, result.prompt = prompt;
      // afterAttempt: the next attempt's prompt, and whether one is asked for.
      if (verdict.prompt && inv.phase == core::HookPhase::after_attempt) result.prompt = verdict.prompt;
      if (verdict.reinvoke && inv.phase == core::HookPhase::after_attempt) result.reinvoke = true;
      if (verdict.name) result.name = verdict.name;
      if (verdict.note) result.note = verdict.note;
      if (verdict.pinned) result.pinned = verdict.pinned;
      if (!verdict.attachments.empty()) attach_files(current, verdict.attachments, services, audit);
      if (auto said = apply_attachment_changes(current, verdict.attachment_changes, services.attachments); !said.empty())
        audit.message = audit.message.empty() ? said : audit.message + "; " + said;
      if (auto& why = verdict.block ? verdict.block : verdict.refuse) {
        audit.outcome = verdict.block ? "blocked" : "refused";
        audit.message = audit.message.empty() ? *why : *why + "; " + audit.message;
        result.stop = "hook '" + hook.id + "' " + audit.outcome + ": " + *why;
      }
    } else if (audit.outcome == "cancelled") {
      // Nothing later runs either; a gate that was stopped does not let through.
      result.cancelled = true;
      if (gates(inv.phase)) result.stop = "hook '" + hook.id + "' was cancelled: " + audit.message;
    } else if (gates(inv.phase)) {
      result.stop = "hook '" + hook.id + "' " + (audit.outcome == "timedOut" ? "timed out" : "failed") + ": " +
                    audit.message;
    }
    core::log_info("hook ran", {{"runId", run.id}, {"hookId", hook.id}, {"phase", std::string(core::to_string(hook.phase))},
                                {"outcome", audit.outcome}, {"ms", std::to_string(audit.duration_ms)}});
    result.audits.push_back(std::move(audit));
    if (result.stop) break;
  }
  return result;
}

void HookCancel::cancel(const std::string& reason) {
  std::lock_guard lock(mutex_);
  if (set_.load()) return;
  reason_ = reason;
  set_.store(true);
}

std::optional<std::string> HookCancel::reason() const {
  if (!set_.load()) return std::nullopt;
  std::lock_guard lock(mutex_);
  return reason_;
}

}  // namespace agentry::engine
