#include "store_import/agent_runner/run_mapping.hpp"
#include "store_import/agent_runner/hook_mapping.hpp"

#include "core/attachment.hpp"
#include "core/clock.hpp"
#include "core/group_id.hpp"
#include "core/ids.hpp"
#include "store_import/agent_runner/attachments_reader.hpp"
#include "store_import/agent_runner/history_mapping.hpp"
#include "store_import/agent_runner/json_fields.hpp"
#include "store_import/agent_runner/read_errors.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace agentry::store_import::agent_runner {
namespace json = boost::json;

namespace {

// Refusals raised while mapping name the manifest and the field, like the readers'.
[[noreturn]] void refuse(const Manifest& m, const std::string& field, const std::string& reason) {
  throw FieldError(m.file.string(), field, reason);
}

json::object backend_config_for(const json::value& config, const std::string& backend) {
  if (!config.is_object()) return {};
  // Theirs may be keyed by backend ({codex: {...}}); ours is the one backend's.
  if (const auto* own = config.as_object().if_contains(backend); own && own->is_object()) return own->as_object();
  return config.as_object();
}

std::optional<core::FrozenLauncher> launcher_of(const ManifestLauncher& l) {
  if (l.kind != "prefix") return std::nullopt;
  core::FrozenLauncher out;
  out.name = l.name.value_or("");
  out.command.push_back(l.command);
  out.command.insert(out.command.end(), l.args.begin(), l.args.end());
  return out;
}

core::FrozenInputs frozen_of(const Manifest& m) {
  core::FrozenInputs f;
  f.agent_name = m.agent_name;
  f.agent_source_path = m.agent_source_path.value_or("");
  f.assignment_name = m.assignment_name.value_or("");
  f.assignment_source_path = m.assignment_source_path.value_or("");
  f.backend = m.backend;
  f.model = m.model.value_or("");
  f.effort = m.effort.value_or("");
  f.timeout_sec = static_cast<int>(std::min<std::int64_t>(m.timeout_sec, 366LL * 86400));
  f.unrestricted = m.unrestricted;
  f.backend_config = backend_config_for(m.backend_config, m.backend);
  f.extra_args = m.resolved_backend_args;
  f.launcher = launcher_of(m.launcher);
  // Their instructions are frozen rendered; there is no template left to re-render.
  f.agent_instructions = m.agent_instructions;
  f.agent_instructions_template = m.agent_instructions;
  f.caller_instructions = m.caller_instructions.value_or("");
  f.message = m.message.value_or("");
  f.message_template = f.message;
  f.brief = m.brief;
  f.vars = m.runtime_vars;
  f.var_sources = m.runtime_var_sources;
  f.cli_vars = m.runtime_vars;
  f.locked_fields = m.locked_fields;
  f.max_attempts_per_session = static_cast<int>(std::min<std::int64_t>(m.max_attempts_per_session, 1000));
  f.notify_parent_on_complete = !m.parent_notifications.empty();
  return f;
}

core::TaskStatus task_status(const Manifest& m, const std::string& field, const std::string& text) {
  auto status = core::parse_task_status(text);
  if (!status) refuse(m, field, "must be pending, in_progress, completed or blocked, not '" + text + "'");
  return *status;
}

json::array snapshot_tasks(const Manifest& m, const Fields& seed) {
  json::array tasks;
  int position = 0;
  for (const auto& [key, value] : seed.object("finalTasks")) {
    const std::string at = "resetSeed.finalTasks." + std::string(key);
    if (!value.is_object()) refuse(m, at, "must be an object");
    const Fields t(value.as_object(), m.file.string(), at);
    const auto status = t.string("status");
    task_status(m, at + ".status", status);
    tasks.push_back(json::object{{"id", t.string("id")}, {"title", t.string("title")}, {"body", t.string("body")},
                                 {"status", status}, {"notes", t.string("notes")}, {"source", "imported"},
                                 {"position", position++}});
  }
  return tasks;
}

// Their resetSeed becomes our initial snapshot (engine/run_snapshot.cpp's form): the
// frozen inputs and tasks a reset goes back to.
std::string initial_snapshot(const Manifest& m, const core::FrozenInputs& frozen) {
  const Fields seed(m.reset_seed, m.file.string(), "resetSeed");
  core::FrozenInputs f = frozen;
  f.backend = seed.string("backend");
  f.model = seed.optional_string("model").value_or("");
  f.effort = seed.optional_string("effort").value_or("");
  if (const auto* config = seed.raw("backendConfig")) f.backend_config = backend_config_for(*config, f.backend);
  f.extra_args = seed.strings("resolvedBackendArgs");
  const auto launcher = seed.nested("launcher");
  ManifestLauncher l{launcher.string("kind"), std::nullopt, {}, {}};
  if (l.kind == "prefix") l = {l.kind, launcher.optional_string("name"), launcher.string("command"), launcher.strings("args")};
  f.launcher = launcher_of(l);
  f.locked_fields = seed.strings("lockedFields");
  f.message = seed.optional_string("message").value_or("");
  f.message_template = f.message;
  f.unrestricted = seed.boolean("unrestricted");
  f.timeout_sec = static_cast<int>(std::clamp<std::int64_t>(seed.integer("timeoutSec"), 0, 366LL * 86400));
  f.max_attempts_per_session = static_cast<int>(std::clamp<std::int64_t>(seed.integer("maxAttemptsPerSession"), 1, 1000));
  f.brief = seed.string("brief");
  f.vars = seed.object("runtimeVars");
  f.cli_vars = f.vars;
  f.var_sources = seed.object("runtimeVarSources");
  json::object snapshot{{"frozen", core::to_json(f)}, {"tasks", snapshot_tasks(m, seed)}, {"backendSessionId", nullptr}};
  return json::serialize(snapshot);
}

std::string repo_root_of(const std::string& cwd) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::path p(cwd); !p.empty(); p = p.parent_path()) {
    if (fs::exists(p / ".git", ec)) return p.string();
    if (p == p.root_path()) break;
  }
  return {};
}

// agent-runner's group ids ("nightly builds") are agentry's too (core/group_id.hpp); an
// id that needed trimming is not the one the manifest's runs share, so it must be exact.
bool is_group_id(const std::string& id) {
  const auto normal = core::normalize_group_id(id);
  return normal && *normal == id;
}

void check_ids(const Manifest& m) {
  if (!core::is_valid_run_id(m.run_id)) refuse(m, "runId", "must be 1 to 64 of [A-Za-z0-9_-] to be an agentry run id");
  if (!is_group_id(m.run_group_id)) refuse(m, "runGroupId", "is not a group id agentry can hold");
  if (m.parent_run_id && !core::is_valid_run_id(*m.parent_run_id)) refuse(m, "parentRunId", "is not a run id agentry can hold");
}

core::Run run_of(const Manifest& m, ImportedRun& out) {
  core::Run run;
  run.id = m.run_id;
  auto status = core::parse_run_status(m.status);
  if (!status) refuse(m, "status", "is not a run status ('" + m.status + "')");
  run.status = *status;
  if (run.status == core::RunStatus::running) {
    out.status_there = m.status;
    run.status = core::RunStatus::error;
    run.status_reason = imported_while_running;
  }
  run.created_at = m.started_at;
  run.updated_at = m.updated_at;
  if (!m.sessions.empty()) run.started_at = m.sessions.front().started_at;
  run.finished_at = m.ended_at;
  if (!run.finished_at && run.status == core::RunStatus::error && !out.status_there.empty()) run.finished_at = m.updated_at;
  run.cwd = m.cwd;
  run.repo_root = repo_root_of(m.cwd);
  run.run_group_id = m.run_group_id;
  run.parent_run_id = m.parent_run_id;
  run.name = m.name;
  run.note = m.note;
  run.pinned = m.pinned;
  run.archived = m.archived_at.has_value();
  run.archived_at = m.archived_at;
  run.backend_session_id = m.backend_session_id;
  run.revision = 1;
  run.frozen = frozen_of(m);
  return run;
}

void map_tasks(const Manifest& m, ImportedRun& out) {
  int position = 0;
  for (const auto& t : m.final_tasks) {
    const std::string at = "finalTasks." + t.id;
    if (!core::is_valid_key(t.id)) refuse(m, at, "has an id agentry cannot hold");
    core::Task task;
    task.run_id = m.run_id;
    task.id = t.id;
    task.title = t.title;
    task.body = t.body;
    task.status = task_status(m, at + ".status", t.status);
    task.notes = t.notes;
    task.source = "imported";
    task.position = position++;
    task.created_at = m.started_at;
    task.updated_at = m.updated_at;
    out.tasks.push_back(std::move(task));
  }
}

void map_schedule(const Manifest& m, std::int64_t now_ms, ImportedRun& out) {
  if (!m.schedule) return;
  const auto& s = *m.schedule;
  core::Schedule schedule;
  schedule.run_id = m.run_id;
  schedule.enabled = s.enabled;
  schedule.updated_at = m.updated_at;
  auto due = core::parse_instant_ms(s.run_at);
  if (!due) refuse(m, "schedule.runAt", "is not an instant (" + due.error().message + ")");
  schedule.next_ms = *due;
  if (s.recurrence) {
    const json::object body{{"cron", s.recurrence->cron},
                            {"timezone", s.recurrence->timezone},
                            {"mode", s.recurrence->mode},
                            {"continueOnFailure", s.recurrence->continue_on_failure}};
    auto spec = core::parse_schedule_request(body, now_ms);
    if (!spec) refuse(m, "schedule.recurrence", spec.error().message);
    schedule.spec = *spec;
  } else {
    schedule.spec.kind = core::ScheduleKind::once;
    schedule.spec.at_ms = *due;
  }
  // An occurrence that came due while nothing ran is the daemon's to handle at its start,
  // as for its own schedules (recorded as missed).
  out.schedule = std::move(schedule);
}

void map_links(const Manifest& m, ImportedRun& out) {
  for (std::size_t i = 0; i < m.dependencies.size(); ++i) {
    const auto& d = m.dependencies[i];
    const bool run = d.type == "run";
    if (run ? !core::is_valid_run_id(d.target) : !is_group_id(d.target))
      refuse(m, "dependencies[" + std::to_string(i) + "]", "names '" + d.target + "', which agentry cannot hold");
    out.dependencies.push_back({run ? core::DependencyType::run : core::DependencyType::group, d.target, m.started_at});
  }
  for (const auto& q : m.queued_messages) {
    json::object source{{"actor", "agent-runner"}};
    if (q.source) {
      source["kind"] = "child_completion";
      for (const char* key : {"childRunId", "notificationId"})
        if (const auto* v = q.source->if_contains(key)) source[key] = *v;
    }
    out.queued_messages.push_back({q.id, m.run_id, q.text, std::move(source), q.created_at});
  }
  for (std::size_t i = 0; i < m.parent_notifications.size(); ++i) {
    const auto& n = m.parent_notifications[i];
    core::ParentNotification p;
    p.child_run_id = m.run_id;
    p.child_session_index = n.session_index;
    p.parent_run_id = n.parent_run_id;
    p.created_at = n.created_at;
    p.updated_at = n.delivered_at.value_or(n.created_at);
    p.delivered_at = n.delivered_at;
    if (n.status == "pending") {
      p.state = "pending";
    } else if (n.status == "delivered_queued" || n.status == "delivered_resumed") {
      p.state = "delivered";
      p.delivery = n.status == "delivered_queued" ? "queued_message" : "resumed";
      p.reason = n.delivery_reason.value_or("");
    } else if (n.status == "failed" || n.status == "skipped") {
      p.state = "skipped";
      p.reason = n.failure_reason ? *n.failure_reason : n.delivery_reason.value_or(n.status);
    } else {
      refuse(m, "parentCompletionNotifications[" + std::to_string(i) + "].status", "is not a notification status ('" + n.status + "')");
    }
    out.parent_notifications.push_back(std::move(p));
  }
}

core::Result<void> map_attachments(const RunSources& s, ImportedRun& out) {
  const auto& m = s.manifest;
  for (std::size_t i = 0; i < m.attachments.size(); ++i) {
    const auto& a = m.attachments[i];
    auto file = check_attachment_file(s.run_dir, a, i);
    if (!file) return file.failure();
    auto name = core::sanitize_attachment_name(a.name);
    if (!name) refuse(m, "attachments[" + std::to_string(i) + "].name", name.error().message);
    core::Attachment row;
    row.id = a.id;
    row.run_id = m.run_id;
    row.run_group_id = m.run_group_id;
    row.name = *name;
    row.sha256 = a.sha256;
    row.size = a.size;
    row.content_type = core::attachment_content_type(a.mime_type);
    row.created_at = a.added_at;
    out.attachments.push_back({std::move(row), *file});
  }
  return core::ok();
}

void list_not_carried(const RunSources& s, ImportedRun& out) {
  const auto& m = s.manifest;
  if (m.has_backend_session_sync) out.not_carried.push_back("backendSessionSync");
  if (m.has_execution_environment) out.not_carried.push_back("executionEnvironment");
  if (s.has_stdout_logs) out.not_carried.push_back("attempts/*.stdout.log");
  for (const auto& seed : s.seed_files) out.not_carried.push_back(seed);
}

}  // namespace

core::Result<ImportedRun> map_run(const RunSources& s, std::int64_t now_ms) {
  const auto& m = s.manifest;
  try {
    check_ids(m);
    ImportedRun out;
    out.run = run_of(m, out);
    out.imported_from = {{"system", "agent-runner"}, {"manifest", m.file.string()}, {"updatedAt", m.updated_at}};
    map_tasks(m, out);
    out.initial_snapshot_json = initial_snapshot(m, out.run.frozen);
    map_schedule(m, now_ms, out);
    map_links(m, out);
    if (auto attached = map_attachments(s, out); !attached) return attached.failure();
    list_not_carried(s, out);
    map_hooks(m, out);
    map_history(s, out);
    map_audit(s, out, core::format_iso8601(now_ms));
    return out;
  } catch (const FieldError& e) {
    return field_failure(e);
  }
}

}  // namespace agentry::store_import::agent_runner
