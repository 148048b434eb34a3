#include "store_import/agent_runner/manifest_reader.hpp"

#include "store_import/agent_runner/json_fields.hpp"
#include "store_import/agent_runner/read_errors.hpp"

#include <boost/json/parse.hpp>


namespace agentry::store_import::agent_runner {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

int small_int(const Fields& f, const char* key) {
  const auto v = f.integer(key);
  if (v < 0 || v > 1'000'000) f.fail(key, "must be between 0 and 1000000");
  return static_cast<int>(v);
}

ManifestLauncher read_launcher(const Fields& f) {
  ManifestLauncher l;
  l.kind = f.string("kind");
  if (l.kind == "direct") return l;
  if (l.kind != "prefix") f.fail("kind", "must be \"direct\" or \"prefix\"");
  l.name = f.optional_string("name");
  l.command = f.string("command");
  l.args = f.strings("args");
  return l;
}

ManifestSchedule read_schedule(const Fields& f) {
  ManifestSchedule s;
  s.enabled = f.boolean("enabled");
  s.run_at = f.string("runAt");
  if (f.optional_object("recurrence")) {
    const auto r = f.nested("recurrence");
    const auto cron = r.nested("schedule");
    if (cron.string("type") != "cron") cron.fail("type", "must be \"cron\"");
    s.recurrence = ManifestRecurrence{cron.string("expression"), cron.string("timezone"), r.string("mode"),
                                      r.boolean("continueOnFailure")};
  }
  return s;
}

void read_tasks(const Fields& f, Manifest& m) {
  for (const auto& [key, value] : f.object("finalTasks")) {
    const std::string at = f.where("finalTasks") + "." + std::string(key);
    if (!value.is_object()) throw FieldError(f.file(), at, "must be an object");
    const Fields t(value.as_object(), f.file(), at);
    ManifestTask task{t.string("id"), t.string("title"), t.string("body"), t.string("status"), t.string("notes")};
    if (task.id != std::string(key)) t.fail("id", "must equal its key '" + std::string(key) + "'");
    m.final_tasks.push_back(std::move(task));
  }
}

void read_history(const Fields& f, Manifest& m) {
  for (std::size_t i = 0; i < f.array("sessions").size(); ++i) {
    const auto s = f.element("sessions", i);
    ManifestSession session{small_int(s, "sessionIndex"), s.string("startedAt"), s.optional_string("endedAt"),
                            s.string("status"), s.optional_string("message"), s.optional_string("backendSessionIdAtEnd"),
                            std::nullopt};
    if (const auto* source = s.optional_object("resumeSource")) session.resume_source = *source;
    m.sessions.push_back(std::move(session));
  }
  for (std::size_t i = 0; i < f.array("attemptRecords").size(); ++i) {
    const auto a = f.element("attemptRecords", i);
    ManifestAttempt r;
    r.number = small_int(a, "attemptNumber");
    r.session_index = small_int(a, "sessionIndex");
    r.index_in_session = small_int(a, "attemptIndexInSession");
    r.started_at = a.string("startedAt");
    r.ended_at = a.string("endedAt");
    r.prompt = a.string("prompt");
    r.exit_code = a.optional_integer("exitCode");
    r.signal = a.optional_string("signal");
    r.timed_out = a.boolean("timedOut");
    r.transcript = a.optional_string("transcript");
    r.log_path = a.string("logPath");
    m.attempts.push_back(std::move(r));
  }
}

void read_links(const Fields& f, Manifest& m) {
  for (std::size_t i = 0; i < f.array("dependencies").size(); ++i) {
    const auto d = f.element("dependencies", i);
    const auto type = d.string("type");
    if (type == "run") m.dependencies.push_back({type, d.string("runId")});
    else if (type == "group") m.dependencies.push_back({type, d.string("groupId")});
    else d.fail("type", "must be \"run\" or \"group\"");
  }
  for (std::size_t i = 0; i < f.array("queuedResumeMessages").size(); ++i) {
    const auto q = f.element("queuedResumeMessages", i);
    ManifestQueuedMessage message{q.string("id"), q.string("text"), q.string("createdAt"), std::nullopt};
    if (const auto* source = q.optional_object("source")) message.source = *source;
    m.queued_messages.push_back(std::move(message));
  }
  for (std::size_t i = 0; i < f.array("parentCompletionNotifications").size(); ++i) {
    const auto n = f.element("parentCompletionNotifications", i);
    m.parent_notifications.push_back({n.string("id"), n.string("parentRunId"), small_int(n, "sessionIndex"),
                                      n.string("status"), n.string("createdAt"), n.optional_string("deliveredAt"),
                                      n.optional_string("deliveryReason"), n.optional_string("failureReason")});
  }
}

void read_attachments(const Fields& f, Manifest& m) {
  for (std::size_t i = 0; i < f.array("attachments").size(); ++i) {
    const auto a = f.element("attachments", i);
    const auto size = a.integer("size");
    if (size < 0) a.fail("size", "must not be negative");
    m.attachments.push_back({a.string("id"), a.string("name"), a.string("mimeType"), static_cast<std::uint64_t>(size),
                             a.string("sha256"), a.string("addedAt"), a.string("relativePath")});
  }
}

void read_supported(const Fields& f, Manifest& m) {
  m.repo = f.string("repo");
  const auto agent = f.nested("agent");
  m.agent_name = agent.string("name");
  m.agent_source_path = agent.optional_string("sourcePath");
  m.agent_instructions = agent.string("instructions");
  if (f.optional_object("assignment")) {
    const auto a = f.nested("assignment");
    m.assignment_name = a.string("name");
    m.assignment_source_path = a.string("sourcePath");
  }
  m.backend = f.string("backend");
  m.model = f.optional_string("model");
  m.effort = f.optional_string("effort");
  if (const auto* config = f.raw("backendConfig")) m.backend_config = *config;
  m.resolved_backend_args = f.strings("resolvedBackendArgs");
  m.launcher = read_launcher(f.nested("launcher"));
  m.message = f.optional_string("message");
  m.name = f.optional_string("name");
  m.note = f.optional_string("note");
  m.pinned = f.boolean("pinned");
  m.unrestricted = f.boolean("unrestricted");
  m.cwd = f.string("cwd");
  m.locked_fields = f.strings("lockedFields");
  m.timeout_sec = f.integer("timeoutSec");
  if (m.timeout_sec < 0) f.fail("timeoutSec", "must not be negative");
  m.started_at = f.string("startedAt");
  m.updated_at = f.string("updatedAt");
  m.ended_at = f.optional_string("endedAt");
  m.archived_at = f.optional_string("archivedAt");
  m.status = f.string("status");
  m.run_group_id = f.string("runGroupId");
  m.parent_run_id = f.optional_string("parentRunId");
  if (f.optional_object("schedule")) m.schedule = read_schedule(f.nested("schedule"));
  m.max_attempts_per_session = f.integer("maxAttemptsPerSession");
  if (m.max_attempts_per_session < 1) f.fail("maxAttemptsPerSession", "must be at least 1");
  m.backend_session_id = f.optional_string("backendSessionId");
  m.runtime_vars = f.object("runtimeVars");
  // Older v25 manifests may lack the sources; agent-runner reads them as none.
  if (const auto* sources = f.optional_object("runtimeVarSources")) m.runtime_var_sources = *sources;
  m.brief = f.string("brief");
  m.caller_instructions = f.optional_string("callerInstructions");
  m.resolved_hooks = f.array("resolvedHooks");
  m.hook_state = f.object("hookState");
  m.hook_audits = f.array("hookAudits");
  m.has_backend_session_sync = f.optional_object("backendSessionSync") != nullptr;
  m.has_execution_environment = f.optional_object("executionEnvironment") != nullptr;
  m.reset_seed = f.object("resetSeed");
  read_links(f, m);
  read_attachments(f, m);
  read_tasks(f, m);
  read_history(f, m);
}

}  // namespace

core::Result<Manifest> parse_manifest(const std::string& text, const fs::path& file) {
  boost::system::error_code ec;
  auto value = json::parse(text, ec);
  if (ec) return file_failure(file, "is not JSON (" + ec.message() + ")");
  if (!value.is_object()) return file_failure(file, "must hold a JSON object");
  try {
    const Fields f(value.as_object(), file.string());
    Manifest m;
    m.file = file;
    m.schema_version = f.integer("schemaVersion");
    m.run_id = f.string("runId");
    if (m.supported()) read_supported(f, m);
    return m;
  } catch (const FieldError& e) {
    return field_failure(e);
  }
}

core::Result<Manifest> read_manifest(const fs::path& file) {
  auto text = read_text_file(file);
  if (!text) return text.failure();
  return parse_manifest(*text, file);
}

}  // namespace agentry::store_import::agent_runner
