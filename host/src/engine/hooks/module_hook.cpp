#include "engine/hooks/module_hook.hpp"

#include "core/json_strings.hpp"
#include "core/utf8.hpp"
#include "engine/hooks/hook_process.hpp"
#include "engine/hooks/hook_runner.hpp"
#include "process/runner.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <mutex>

namespace agentry::engine {
namespace json = boost::json;
namespace {

constexpr std::size_t max_answer_bytes = 1024 * 1024;
constexpr std::size_t max_patch_tasks = 100;

std::mutex settings_mutex;
ModuleHookSettings current_settings;

std::filesystem::path default_host_script() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return exe.parent_path().parent_path() / "share" / "agentry" / "hook-host.mjs";
}

json::object task_json(const core::Task& t) {
  return {{"id", t.id}, {"title", t.title}, {"body", t.body}, {"status", core::to_string(t.status)}, {"notes", t.notes}};
}

json::object attachment_json(const core::Attachment& a) {
  // agentry keeps contents by digest, not at a path under the run: relativePath is null.
  return {{"id", a.id},           {"name", a.name},          {"mimeType", a.content_type}, {"size", a.size},
          {"sha256", a.sha256},   {"addedAt", a.created_at}, {"relativePath", nullptr}};
}

json::object run_json(const core::Run& run) {
  const auto& f = run.frozen;
  return {{"runId", run.id},
          {"repo", run.repo_root.empty() ? run.cwd : run.repo_root},
          {"status", core::to_string(run.status)},
          {"backend", f.backend},
          {"model", f.model.empty() ? json::value(nullptr) : json::value(f.model)},
          {"effort", f.effort.empty() ? json::value(nullptr) : json::value(f.effort)},
          {"cwd", run.cwd},
          {"workspaceDir", run.cwd},
          {"name", core::text_or_null(run.name)},
          {"note", core::text_or_null(run.note)},
          {"pinned", run.pinned},
          {"backendSessionId", core::text_or_null(run.backend_session_id)},
          {"totalAttemptCount", run.attempt_count},
          {"maxAttemptsPerSession", f.max_attempts_per_session},
          {"totalSessionCount", run.session_count}};
}

/// A string member, or an error naming it.
std::optional<std::string> string_member(const json::object& o, const char* key, const std::string& where,
                                         std::optional<std::string>& failure) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_string()) {
    failure = where + "." + key + " must be a string";
    return std::nullopt;
  }
  return core::sanitize_utf8(v->as_string());
}

void read_patch_tasks(const json::value& field, ModuleVerdict& v) {
  if (!field.is_array() || field.as_array().size() > max_patch_tasks) {
    v.failure = "mutate.patchTasks must be a list of at most " + std::to_string(max_patch_tasks) + " patches";
    return;
  }
  for (std::size_t i = 0; i < field.as_array().size(); ++i) {
    const std::string where = "mutate.patchTasks[" + std::to_string(i) + "]";
    const auto* o = field.as_array()[i].if_object();
    if (o == nullptr) {
      v.failure = where + " must be an object {taskId, status?, notesReplace?, notesAppend?}";
      return;
    }
    for (const auto& [key, _] : *o)
      if (key != "taskId" && key != "status" && key != "notesReplace" && key != "notesAppend") {
        v.failure = where + "." + std::string(key) + " is not a member of a task patch";
        return;
      }
    HookTaskPatch patch;
    patch.task_id = string_member(*o, "taskId", where, v.failure).value_or("");
    if (auto status = string_member(*o, "status", where, v.failure)) {
      patch.status = core::parse_task_status(*status);
      if (!patch.status) v.failure = where + ".status '" + *status + "' is not pending, in_progress, completed or blocked";
    }
    patch.notes_replace = string_member(*o, "notesReplace", where, v.failure);
    patch.notes_append = string_member(*o, "notesAppend", where, v.failure);
    if (v.failure) return;
    if (patch.task_id.empty()) {
      v.failure = where + ".taskId is required";
      return;
    }
    if (patch.notes_replace && patch.notes_append) {
      v.failure = where + " has both notesReplace and notesAppend";
      return;
    }
    v.patch_tasks.push_back(std::move(patch));
  }
}

bool is_prepare_run_field(std::string_view key) {
  for (std::string_view known : {"cwd", "backend", "model", "effort", "timeoutSec", "unrestricted", "lockedFields"})
    if (key == known) return true;
  return false;
}

/// mutate.run: at prepare the run's inputs, before they are frozen (their values are
/// checked where they are applied, engine/hooks/prepare_at_init.cpp); at beforeAttempt
/// the attempt's prompt. A field agentry cannot change at the phase fails the hook,
/// naming it, rather than being dropped.
void read_run_mutation(core::HookPhase phase, const json::value& value, ModuleVerdict& v) {
  if (!value.is_object()) {
    v.failure = "mutate.run must be an object";
    return;
  }
  const std::string at(core::to_string(phase));
  for (const auto& [key, field] : value.as_object()) {
    if (field.is_null()) continue;
    const std::string where = "mutate.run." + std::string(key);
    if (key == "initialPrompt" || key == "attemptPrompt") {
      const bool usable = key == "initialPrompt" ? phase == core::HookPhase::prepare
                                                 : phase == core::HookPhase::before_attempt ||
                                                       phase == core::HookPhase::after_attempt;
      if (!usable) {
        v.failure = where + " is not used at " + at +
                    " (initialPrompt: at prepare; attemptPrompt: at beforeAttempt and afterAttempt)";
      } else if (!field.is_string() || field.as_string().empty()) {
        v.failure = where + " must be a non-empty string";
      } else {
        v.prompt = core::sanitize_utf8(field.as_string());
      }
    } else if (!is_prepare_run_field(key)) {
      v.failure = where + " is not a run field (cwd, backend, model, effort, timeoutSec, unrestricted, lockedFields, "
                          "initialPrompt, attemptPrompt)";
    } else if (phase != core::HookPhase::prepare) {
      v.failure = where + " cannot be changed at " + at +
                  " in agentry: a run's inputs are frozen once it is initialized (change them at prepare)";
    } else {
      v.run[key] = field;
    }
    if (v.failure) return;
  }
}

void read_mutations(core::HookPhase phase, const json::value& field, ModuleVerdict& v) {
  if (field.is_null()) return;
  const auto* m = field.if_object();
  if (m == nullptr) {
    v.failure = "mutate must be an object";
    return;
  }
  for (const auto& [key, value] : *m) {
    if (value.is_null()) continue;
    if (key == "state") {
      if (!value.is_object()) v.failure = "mutate.state must be an object";
      else v.state = value.as_object();
    } else if (key == "note") {
      if (!value.is_string()) v.failure = "mutate.note must be a string or null";
      else v.note = core::sanitize_utf8(value.as_string());
    } else if (key == "pinned") {
      if (!value.is_bool()) v.failure = "mutate.pinned must be true or false";
      else v.pinned = value.as_bool();
    } else if (key == "patchTasks") {
      read_patch_tasks(value, v);
    } else if (key == "attachments") {
      read_attachment_changes(value, v.attachments, v.failure);
    } else if (key == "run") {
      read_run_mutation(phase, value, v);
    } else if (key == "vars") {
      if (phase != core::HookPhase::prepare) v.failure = "mutate.vars is only allowed at prepare";
      else if (!value.is_object()) v.failure = "mutate.vars must be an object";
      else v.vars = value.as_object();
    } else {
      v.failure = "mutate." + std::string(key) + " is not a mutation";
    }
    if (v.failure) return;
  }
}

}  // namespace

void configure_module_hooks(ModuleHookSettings settings) {
  std::lock_guard lock(settings_mutex);
  if (settings.node.empty()) settings.node = "node";
  settings.timeout_sec = std::clamp(settings.timeout_sec, 1, core::max_hook_timeout_sec);
  current_settings = std::move(settings);
}

ModuleHookSettings module_hook_settings() {
  std::lock_guard lock(settings_mutex);
  return current_settings;
}

ModuleVerdict map_module_result(core::HookPhase phase, const json::value& result) {
  ModuleVerdict v;
  if (result.is_null()) return v;  // no function for the phase, or it returned nothing
  const auto* o = result.if_object();
  if (o == nullptr) {
    v.failure = "its result must be an object, not " + json::serialize(result).substr(0, 100);
    return v;
  }
  if (const auto* mutate = o->if_contains("mutate")) read_mutations(phase, *mutate, v);
  if (v.failure) return v;
  if (phase == core::HookPhase::task_transition) {
    const auto* accept = o->if_contains("accept");
    if (accept == nullptr || !accept->is_bool()) {
      v.failure = "a taskTransition result needs accept: true or false";
    } else if (!accept->as_bool()) {
      auto reason = string_member(*o, "reason", "result", v.failure);
      v.block = reason && !reason->empty() ? *reason : std::string("rejected by the hook");
    }
    return v;
  }
  auto action = string_member(*o, "action", "result", v.failure).value_or("");
  if (v.failure) return v;
  if (action == "continue") return v;
  if (action == "block") {
    auto reason = string_member(*o, "reason", "result", v.failure);
    if (v.failure) return v;
    if (phase == core::HookPhase::after_attempt) {
      v.failure = "block at afterAttempt is not supported by agentry (the attempt has ended; block at "
                  "beforeAttempt, or refuse the end at afterExit)";
      return v;
    }
    v.block = reason && !reason->empty() ? *reason : std::string("blocked by the hook");
    return v;
  }
  if (action == "reinvoke") {
    auto follow_up = string_member(*o, "followUpPrompt", "result", v.failure);
    if (v.failure) return v;
    if (!follow_up || follow_up->empty()) {
      v.failure = "reinvoke needs a non-empty followUpPrompt";
    } else if (phase != core::HookPhase::after_exit) {
      // prepare: the run's first prompt; beforeAttempt: this attempt's; afterAttempt: one
      // more attempt with it.
      v.prompt = *follow_up;
      v.reinvoke = true;
    } else {
      v.failure = "reinvoke at afterExit is not supported by agentry (the session has ended; reinvoke at "
                  "afterAttempt asks for another attempt)";
    }
    return v;
  }
  v.failure = action.empty() ? std::string("its result needs action: continue, reinvoke or block")
                             : "'" + action + "' is not an action (continue, reinvoke or block)";
  return v;
}

json::object module_hook_context(const core::Run& run, const core::HookSpec& hook, const HookInvocation& inv,
                                 const ModuleHookInputs& in) {
  const auto& f = run.frozen;
  json::object ctx{{"schemaVersion", 1}, {"phase", core::to_string(inv.phase)}};
  ctx["assignment"] = json::object{
      {"name", f.assignment_name},
      {"sourcePath", f.assignment_source_path.empty() ? json::value(nullptr) : json::value(f.assignment_source_path)}};
  ctx["run"] = run_json(run);
  ctx["vars"] = f.vars;
  ctx["state"] = in.state;
  json::array attachments;
  for (const auto& a : in.attachments) attachments.push_back(attachment_json(a));
  ctx["attachments"] = std::move(attachments);
  json::array items;
  int completed = 0;
  for (const auto& t : in.tasks) {
    items.push_back(task_json(t));
    if (t.status == core::TaskStatus::completed) ++completed;
  }
  ctx["tasks"] = json::object{{"items", std::move(items)}, {"completed", completed}, {"total", in.tasks.size()}};
  ctx["config"] = hook.options;
  switch (inv.phase) {
    case core::HookPhase::prepare:
      ctx["defaultInitialPrompt"] = f.brief;
      ctx["currentInitialPrompt"] = in.prompt.empty() ? f.brief : in.prompt;
      ctx["initialLockedFields"] = json::value_from(f.locked_fields);
      break;
    case core::HookPhase::before_attempt:
    case core::HookPhase::after_attempt:
    case core::HookPhase::after_exit: {
      ctx["attemptPrompt"] = inv.phase == core::HookPhase::before_attempt ? json::value(in.prompt) : json::value("");
      const int index = in.attempt_index_in_session.value_or(0);
      ctx["sessionIndex"] = inv.session_index.value_or(0);
      ctx["attemptIndexInSession"] = index;
      ctx["retriesRemaining"] = std::max(0, f.max_attempts_per_session - index - 1);
      if (inv.phase == core::HookPhase::after_attempt) {
        // agentry records an attempt's outcome, not its process: what it cannot tell is null.
        auto outcome = inv.facts.count("outcome") ? inv.facts.at("outcome") : std::string();
        ctx["attemptResult"] = json::object{{"exitCode", nullptr},
                                            {"signal", nullptr},
                                            {"timedOut", outcome == "timeout"},
                                            {"transcript", nullptr},
                                            {"rawStdout", ""},
                                            {"rawStderr", ""},
                                            {"sessionId", core::text_or_null(run.backend_session_id)},
                                            {"aborted", outcome == "interrupted"},
                                            {"outcome", outcome}};
      }
      break;
    }
    case core::HookPhase::task_transition: {
      // agent-runner's {taskId, source, from, to, tentative, changedFields}, built by the
      // task command that runs the hooks (engine/tasks/task_transition_hooks.cpp).
      const auto* transition = inv.info.if_contains("transition");
      ctx["transition"] = transition ? *transition : json::value(nullptr);
      break;
    }
  }
  return ctx;
}

std::optional<json::value> run_module_hook(const core::Run& run, const core::HookSpec& hook, const json::object& context,
                                           const std::function<std::optional<std::string>()>& cancelled,
                                           core::HookAudit& audit) {
  const auto settings = module_hook_settings();
  const auto script = settings.host_script.empty() ? default_host_script() : settings.host_script;
  std::error_code ec;
  if (script.empty() || !std::filesystem::is_regular_file(script, ec)) {
    audit.outcome = "failed";
    audit.message = "agentry's module hook host " + script.string() + " is missing (it belongs beside the binary)";
    return std::nullopt;
  }
  process::RunRequest request;
  request.argv = {settings.node, script.string()};
  request.stdin_data =
      json::serialize(json::object{{"module", hook.module_path}, {"phase", core::to_string(hook.phase)}, {"context", context}}) +
      "\n";
  request.env = {{"AGENTRY_RUN_ID", run.id},
                 {"AGENTRY_HOOK_ID", hook.id},
                 {"AGENTRY_HOOK_PHASE", std::string(core::to_string(hook.phase))}};
  if (!run.cwd.empty() && std::filesystem::is_directory(run.cwd, ec)) request.cwd = run.cwd;
  const int seconds = hook.timeout_sec > 0 ? hook.timeout_sec : settings.timeout_sec;
  const HookProcessLimits limits{seconds, max_answer_bytes, "cannot start node '" + settings.node + "' (AGENTRY_NODE): "};
  auto ran = run_hook_process(request, limits, cancelled, audit);
  if (!ran) return std::nullopt;
  const auto& result = *ran;
  // The answer is the last line the host wrote; a module that exits the process itself
  // leaves none.
  std::string_view out = result.stdout_text;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.remove_suffix(1);
  if (auto nl = out.rfind('\n'); nl != std::string_view::npos) out.remove_prefix(nl + 1);
  boost::system::error_code parse_error;
  auto answer = out.empty() ? json::value() : json::parse(out, parse_error);
  const auto* o = answer.if_object();
  if (result.stdout_truncated || parse_error || o == nullptr || !o->contains("ok") || !o->at("ok").is_bool()) {
    audit.outcome = "failed";
    audit.message = result.exit_code && *result.exit_code != 0
                        ? "node exited with status " + std::to_string(*result.exit_code) + " without an answer" +
                              (result.stderr_text.empty() ? "" : ": " + process::first_line(result.stderr_text))
                        : "the module hook host gave no answer (did the module end the process?)";
    return std::nullopt;
  }
  if (!o->at("ok").as_bool()) {
    const auto* error = o->if_contains("error");
    audit.outcome = "failed";
    audit.message = error && error->is_string() ? process::first_line(std::string(error->as_string()), 500)
                                                : std::string("the module failed");
    return std::nullopt;
  }
  audit.outcome = "ok";
  const auto* value = o->if_contains("result");
  return value ? *value : json::value(nullptr);
}

}  // namespace agentry::engine
