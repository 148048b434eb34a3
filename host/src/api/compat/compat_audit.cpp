#include "api/compat/compat_audit.hpp"

#include "api/compat/compat_json.hpp"

#include <boost/json/array.hpp>

#include <array>
#include <utility>

namespace agentry::api::compat {
namespace json = boost::json;
using namespace detail;

namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 17> renames{{
    {"run.initialized", "run.created"},
    {"run.message_queued", "run.queued_resume_message_added"},
    {"run.message_removed", "run.queued_resume_message_removed"},
    {"run.group_set", "run.group_changed"},
    {"run.backend_session_set", "run.backend_session_updated"},
    {"run.backend_session_cleared", "run.backend_session_updated"},
    {"schedule.set", "run.schedule_set"},
    {"schedule.cleared", "run.schedule_cleared"},
    {"schedule.enabled", "run.schedule_enabled"},
    {"schedule.disabled", "run.schedule_disabled"},
    {"schedule.missed", "run.schedule_missed"},
    {"schedule.skipped", "run.schedule_skipped"},
    {"schedule.fired", "run.schedule_due"},
    {"parent_notification.pending", "run.parent_completion_notification_created"},
    {"parent_notification.delivered", "run.parent_completion_notification_delivered"},
    {"parent_notification.skipped", "run.parent_completion_notification_skipped"},
    {"task.notes_appended", "task.updated"},
}};

void put_count(const json::object& data, std::string_view key, json::object& out) {
  const auto* v = data.if_contains(key);
  if (v && v->is_int64() && v->as_int64() >= 0) out[key] = v->as_int64();
  else if (v && v->is_uint64()) out[key] = v->as_uint64();
}

}  // namespace

std::string ref_audit_type(std::string_view type) {
  for (const auto& [ours, theirs] : renames)
    if (ours == type) return std::string(theirs);
  return std::string(type);
}

std::string ref_audit_source(std::string_view actor) {
  if (actor == "api" || actor == "ws" || actor == "cli") return "cli";
  if (actor == "daemon" || actor == "schedule") return "daemon";
  if (actor == "agent") return "task_command";
  return "system";
}

json::object ref_audit_event(const json::object& r, const CompatFacts& facts) {
  const auto& data = object_at(r, "data");
  json::object out{{"type", ref_audit_type(string_at(r, "type"))},
                   {"recordedAt", string_at(r, "at")},
                   {"source", ref_audit_source(string_at(r, "actor"))},
                   {"hostMode", "daemon"},
                   {"controllerInstanceId", facts.daemon_instance_id}};
  put_count(data, "sessionIndex", out);
  put_count(data, "attemptNumber", out);
  out["fields"] = data;
  return out;
}

json::object ref_audit_envelope(const json::object& r, const CompatFacts& facts) {
  return {{"runId", string_at(r, "runId")}, {"cursor", int_at(r, "cursor")}, {"event", ref_audit_event(r, facts)}};
}

json::object ref_audit_history(const json::object& page, const std::string& run_id, const CompatFacts& facts) {
  json::array events;
  std::int64_t newest = 0;
  for (const auto& e : array_at(page, "events")) {
    if (!e.is_object()) continue;
    events.push_back(ref_audit_envelope(e.as_object(), facts));
    newest = std::max(newest, int_at(e.as_object(), "cursor"));
  }
  const auto id = string_at(page, "runId");
  return {{"runId", id.empty() ? run_id : id},
          {"events", std::move(events)},
          {"lastCursor", is_null_or_absent(page, "lastCursor") ? newest : int_at(page, "lastCursor")}};
}

}  // namespace agentry::api::compat
