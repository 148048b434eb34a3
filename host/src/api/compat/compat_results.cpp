#include "api/compat/compat_results.hpp"

#include "api/compat/compat_json.hpp"
#include "api/compat/compat_run_dto.hpp"

#include <boost/json/array.hpp>

namespace agentry::api::compat {
namespace json = boost::json;
using namespace detail;

namespace {

json::object result_head(const json::object& run) {
  return {{"runId", string_at(run, "runId")}, {"updatedAt", string_at(run, "updatedAt")}};
}

}  // namespace

json::object ref_archive_result(const json::object& run, bool changed) {
  auto out = result_head(run);
  out["status"] = ref_status(string_at(run, "status"));
  out["archivedAt"] = string_or_null(run, "archivedAt");
  out["changed"] = changed;
  return out;
}

json::object ref_name_result(const json::object& run, bool changed) {
  auto out = result_head(run);
  out["name"] = string_or_null(run, "name");
  out["changed"] = changed;
  return out;
}

json::object ref_note_result(const json::object& run, bool changed) {
  auto out = result_head(run);
  out["note"] = string_or_null(run, "note");
  out["changed"] = changed;
  return out;
}

json::object ref_pinned_result(const json::object& run, bool changed) {
  auto out = result_head(run);
  out["pinned"] = bool_at(run, "pinned");
  out["changed"] = changed;
  return out;
}

json::object ref_backend_session_result(const json::object& run, bool changed) {
  auto out = result_head(run);
  out["backendSessionId"] = string_or_null(run, "backendSessionId");
  out["changed"] = changed;
  return out;
}

json::object ref_group_result(const json::object& run, const std::string& previous_run_group_id, bool changed) {
  auto out = result_head(run);
  out["runGroupId"] = string_at(run, "runGroupId");
  out["previousRunGroupId"] = previous_run_group_id;
  out["changed"] = changed;
  return out;
}

json::object ref_dependencies_result(const json::object& run, bool changed) {
  auto out = result_head(run);
  json::array refs;
  for (const auto& d : array_at(run, "dependencies")) {
    if (!d.is_object()) continue;
    const auto& o = d.as_object();
    if (string_at(o, "type") == "group")
      refs.push_back(json::object{{"type", "group"}, {"groupId", string_at(o, "groupId")}});
    else
      refs.push_back(json::object{{"type", "run"}, {"runId", string_at(o, "runId")}});
  }
  out["dependencies"] = std::move(refs);
  out["changed"] = changed;
  return out;
}

json::object ref_queue_message_result(const json::object& native, const CompatFacts& facts) {
  return {{"run", ref_detail(object_at(native, "run"), facts)},
          {"queuedResumeMessage", ref_queued_message(object_at(native, "message"))}};
}

json::object ref_remove_queued_message_result(const json::object& detail, const std::string& removed_message_id,
                                              const CompatFacts& facts) {
  return {{"run", ref_detail(detail, facts)}, {"removedMessageId", removed_message_id}};
}

json::object ref_attachment_remove_result(const json::object& native) {
  const auto& a = object_at(native, "attachment");
  return {{"runId", string_at(a, "runId")}, {"attachmentId", string_at(a, "attachmentId")}, {"changed", bool_at(native, "removed")}};
}

json::object ref_daemon_info(const json::object& native, const std::string& listen_url) {
  const auto& d = native.contains("daemon") ? object_at(native, "daemon") : native;
  return {{"daemonInstanceId", string_at(d, "daemonInstanceId")},
          {"pid", int_at(d, "pid")},
          {"listenUrl", listen_url},
          {"version", string_at(d, "version")},
          {"startedAt", string_at(d, "startedAt")}};
}

}  // namespace agentry::api::compat
