// agent-runner's run settings: `run set-name|set-note|clear-note|pin|unpin|archive|
// unarchive|set-group|clear-group|set-backend-session|clear-backend-session|add-dep|
// remove-dep|clear-deps <run> ...`. Its answers say whether anything changed, where ours
// refuse some repeats (archiving an archived run) or answer the run: each verb reads the
// run first, leaves ours alone when theirs would answer "unchanged", and prints its
// result object (api/compat/compat_results.hpp) or its one line.

#include "api/compat/compat_dto.hpp"
#include "cli/compat/agent_runner_invocation.hpp"
#include "cli/render.hpp"

#include <boost/json.hpp>

#include <functional>

namespace agentry::cli::compat {
namespace json = boost::json;

namespace {

const json::value& member(const json::object& run, std::string_view key) {
  static const json::value null;
  const auto* v = run.if_contains(key);
  return v ? *v : null;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

/// One verb: the operation it calls and its parameters, when theirs answers
/// "unchanged" instead, its result object and its line of text.
struct Setting {
  std::string method;
  json::object params;  // beside runId
  std::function<bool(const json::object& before)> unchanged;
  std::function<json::object(const json::object& before, const json::object& after, bool changed)> result;
  std::function<std::string(const json::object& result)> line;
};

std::string quoted(const json::value& v) { return "\"" + text_of(v) + "\""; }

}  // namespace

int Invocation::metadata_command(const std::string& verb) {
  const std::string command = "run " + verb;
  const bool with_value = verb == "set-name" || verb == "set-note" || verb == "set-group" ||
                          verb == "set-backend-session";
  const bool with_ref = verb == "add-dep" || verb == "remove-dep";
  std::vector<std::string> allowed{"--output-format"};
  if (verb == "set-name") allowed.push_back("--clear");
  if (with_ref) {
    allowed.push_back("--run");
    allowed.push_back("--group");
  }
  if (auto refused = refuse_others(command, allowed)) return *refused;
  const bool clear_name = verb == "set-name" && args_.has("--clear");
  if (clear_name && args_.words.size() > 3) return usage("run set-name does not accept both <name> and --clear");
  if (verb == "set-name" && !clear_name && args_.words.size() == 3) return usage("run set-name requires <name> or --clear");
  std::vector<std::string> names{"run"};
  if (with_value && !clear_name)
    names.push_back(verb == "set-name" ? "name" : verb == "set-note" ? "text" : verb == "set-group" ? "group-id" : "session-id");
  if (auto refused = want_words(command, 2, names)) return *refused;
  const std::string run_id = word(2);
  const std::string value = names.size() > 1 ? word(3) : std::string();

  Setting s;
  using Run = json::object;
  if (verb == "set-name") {
    const std::string name = trimmed(value);
    if (!clear_name && name.empty()) return usage("run set-name: <name> cannot be empty");
    const json::value wanted = clear_name ? json::value(nullptr) : json::value(name);
    s = {"runs.setName", {{"name", wanted}}, [wanted](const Run& b) { return member(b, "name") == wanted; },
         [](const Run&, const Run& a, bool changed) { return api::compat::ref_name_result(a, changed); },
         [run_id](const Run& r) {
           if (r.at("name").is_null())
             return r.at("changed").as_bool() ? "cleared name for run " + run_id : "run " + run_id + " already has no name";
           return r.at("changed").as_bool() ? "set name for run " + run_id + " to " + quoted(r.at("name"))
                                            : "run " + run_id + " already has name " + quoted(r.at("name"));
         }};
  } else if (verb == "set-note" || verb == "clear-note") {
    const json::value wanted = verb == "set-note" ? json::value(value) : json::value(nullptr);
    s = {"runs.setNote", {{"note", wanted}}, [wanted](const Run& b) { return member(b, "note") == wanted; },
         [](const Run&, const Run& a, bool changed) { return api::compat::ref_note_result(a, changed); },
         [run_id](const Run& r) {
           const bool changed = r.at("changed").as_bool();
           if (r.at("note").is_null())
             return changed ? "cleared note for run " + run_id : "run " + run_id + " already has no note";
           return changed ? "set note for run " + run_id + " to present" : "run " + run_id + " already has note present";
         }};
  } else if (verb == "pin" || verb == "unpin") {
    const bool pinned = verb == "pin";
    s = {"runs.setPinned", {{"pinned", pinned}}, [pinned](const Run& b) { return member(b, "pinned") == json::value(pinned); },
         [](const Run&, const Run& a, bool changed) { return api::compat::ref_pinned_result(a, changed); },
         [run_id, pinned](const Run& r) {
           const bool changed = r.at("changed").as_bool();
           if (pinned) return changed ? "pinned run " + run_id : "run " + run_id + " is already pinned";
           return changed ? "unpinned run " + run_id : "run " + run_id + " is already unpinned";
         }};
  } else if (verb == "archive" || verb == "unarchive") {
    const bool archive = verb == "archive";
    s = {"runs." + verb, {}, [archive](const Run& b) { return member(b, "archivedAt").is_null() != archive; },
         [](const Run&, const Run& a, bool changed) { return api::compat::ref_archive_result(a, changed); },
         [run_id, archive](const Run& r) {
           const bool changed = r.at("changed").as_bool();
           if (archive) return changed ? "archived run " + run_id : "run " + run_id + " is already archived";
           return changed ? "unarchived run " + run_id : "run " + run_id + " is not archived";
         }};
  } else if (verb == "set-group" || verb == "clear-group") {
    const bool set = verb == "set-group";
    s = {set ? "runs.setGroup" : "runs.clearGroup", set ? json::object{{"runGroupId", value}} : json::object{},
         [set, value, run_id](const Run& b) {
           // Cleared: a group of its own, named by its id.
           return text_of(member(b, "runGroupId")) == (set ? value : run_id);
         },
         [](const Run& b, const Run& a, bool changed) {
           return api::compat::ref_group_result(a, text_of(member(b, "runGroupId")), changed);
         },
         [run_id, set](const Run& r) {
           const bool changed = r.at("changed").as_bool();
           const std::string group = text_of(r.at("runGroupId"));
           if (set) return changed ? "set group for run " + run_id + " to " + group
                                   : "run " + run_id + " is already in group " + group;
           return changed ? "cleared group for run " + run_id + "; run is now in singleton group " + group
                          : "run " + run_id + " is already in singleton group " + group;
         }};
  } else if (verb == "set-backend-session" || verb == "clear-backend-session") {
    const bool set = verb == "set-backend-session";
    if (set && trimmed(value).empty()) return usage("run set-backend-session: <session-id> cannot be empty");
    const json::value wanted = set ? json::value(value) : json::value(nullptr);
    s = {set ? "runs.setBackendSession" : "runs.clearBackendSession",
         set ? json::object{{"backendSessionId", value}} : json::object{},
         [wanted](const Run& b) { return member(b, "backendSessionId") == wanted; },
         [](const Run&, const Run& a, bool changed) { return api::compat::ref_backend_session_result(a, changed); },
         [run_id, set](const Run& r) {
           const bool changed = r.at("changed").as_bool();
           if (set)
             return changed ? "set backend session for run " + run_id + " to " + quoted(r.at("backendSessionId"))
                            : "run " + run_id + " already has backend session " + quoted(r.at("backendSessionId"));
           return changed ? "cleared backend session for run " + run_id
                          : "run " + run_id + " already has no backend session";
         }};
  } else {  // add-dep, remove-dep, clear-deps
    json::object params;
    std::string label;
    if (with_ref) {
      const auto run_ref = args_.value("--run");
      const auto group_ref = args_.value("--group");
      if (run_ref.has_value() == group_ref.has_value())
        return usage(command + " requires exactly one of --run or --group");
      params["dependency"] = run_ref ? json::object{{"type", "run"}, {"runId", *run_ref}}
                                     : json::object{{"type", "group"}, {"groupId", *group_ref}};
      label = run_ref ? "run dependency " + *run_ref : "group dependency " + *group_ref;
    }
    const bool clear = verb == "clear-deps";
    s = {verb == "add-dep" ? "runs.addDependency" : verb == "remove-dep" ? "runs.removeDependency" : "runs.clearDependencies",
         std::move(params),
         [clear](const Run& b) {
           const auto& deps = member(b, "dependencies");
           return clear && (!deps.is_array() || deps.as_array().empty());
         },
         [](const Run&, const Run& a, bool changed) { return api::compat::ref_dependencies_result(a, changed); },
         [run_id, verb, label](const Run& r) {
           if (verb == "add-dep") return "added " + label + " to run " + run_id;
           if (verb == "remove-dep") return "removed " + label + " from run " + run_id;
           return r.at("changed").as_bool() ? "cleared dependencies for run " + run_id
                                            : "run " + run_id + " already has no dependencies";
         }};
  }

  auto before = native_run(run_id);
  if (!before) return failed(before.error());
  json::object result;
  if (s.unchanged(*before)) {
    result = s.result(*before, *before, false);
  } else {
    json::object params = s.params;
    params["runId"] = run_id;
    auto after = ctx_.call(s.method, std::move(params));
    if (!after) return failed(after.error());
    result = s.result(*before, after->as_object().at("run").as_object(), true);
  }
  if (json_output()) return print_json(result);
  return print_line("agent-runner: " + s.line(result));
}

}  // namespace agentry::cli::compat
