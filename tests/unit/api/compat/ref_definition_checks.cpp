// Checkers of agent-runner's DefinitionListResult and DefinitionDetail, with the definition
// schemas (agent and launcher configs, var declarations and hook `when` are strict).

#include "ref_schema_checks.hpp"
#include "schema_check.hpp"

#include <boost/json/object.hpp>

#include <algorithm>
#include <string_view>

namespace agentry::api::compat::testing {
namespace {
namespace json = boost::json;
using namespace schema;

// ---- definitions ------------------------------------------------------------------

Check attempt_when_value() {
  return [](const json::value& v, const std::string& path, Problems& p) {
    if (v.is_array()) return array_of(integer_t(0), true)(v, path, p);
    integer_t(0)(v, path, p);
  };
}

Check hook_entry(const std::string& phase) {
  Check when;
  if (phase == "prepare") {
    when = record_of(any_t());
  } else if (phase == "taskTransition") {
    when = object_of({opt("taskId", string_t(1)),
                      opt("taskIds", array_of(string_t(1), true)),
                      opt("toStatus", array_of(enum_of(task_statuses), true)),
                      opt("fromStatus", array_of(enum_of(task_statuses), true)),
                      opt("source", array_of(enum_of({"run-loop", "task-set", "task-append-notes", "task-add"}), true))},
                     [](const json::value& v, const std::string& path, Problems& p) {
                       if (v.as_object().contains("taskId") && v.as_object().contains("taskIds"))
                         report(p, path, "taskId and taskIds together");
                     });
  } else {
    when = object_of({opt("sessionIndex", attempt_when_value()), opt("attemptIndexInSession", attempt_when_value())});
  }
  auto exactly_one_source = [](const json::value& v, const std::string& path, Problems& p) {
    const auto& o = v.as_object();
    const int named = int(o.contains("builtin")) + int(o.contains("name")) + int(o.contains("path"));
    if (named != 1) report(p, path, "a hook entry names exactly one of builtin, name, path");
  };
  return object_of({opt("builtin", string_t(1)),
                    opt("name", string_t(1)),
                    opt("path", string_t(1)),
                    opt("with", any_t()),
                    opt("when", null_or(when))},
                   exactly_one_source);
}

Check task_def() {
  auto title_rule = [](const json::value& v, const std::string& path, Problems& p) {
    const auto& title = v.as_object().at("title").as_string();
    if (title.empty() || title.size() > 200 || std::string_view(title).find_first_of("\r\n") != std::string_view::npos)
      report(p, path + ".title", "1-200 characters on one line");
  };
  return object_of({req("id", string_t(1)),
                    req("title", string_t(1)),
                    opt("body", str()),
                    opt("hooks", array_of(hook_entry("taskTransition")))},
                   title_rule);
}

Check var_def() {
  auto enum_values = [](const json::value& v, const std::string& path, Problems& p) {
    const auto& o = v.as_object();
    const auto* type = o.if_contains("type");
    if (type && type->as_string() == "enum" && (!o.contains("values") || o.at("values").as_array().empty()))
      report(p, path + ".values", "enum vars need values");
  };
  return object_of({opt("type", enum_of({"string", "number", "boolean", "enum"})),
                    opt("required", bool_t()),
                    opt("requiredAt", enum_of({"initial", "prepare"})),
                    opt("sources", array_of(enum_of({"cli", "web", "env", "parent"}), true)),
                    opt("envName", str()),
                    opt("default", any_t()),
                    opt("description", str()),
                    opt("values", array_of(str()))},
                   enum_values);
}

Check agent_config() {
  auto launcher = [](const json::value& v, const std::string& path, Problems& p) {
    if (v.is_string()) return string_t(1)(v, path, p);
    object_of({req("command", string_t(1)), opt("args", array_of(str()))})(v, path, p);
  };
  return object_of({req("schemaVersion", literal_int(1)),
                    req("name", string_t(1)),
                    req("backend", string_t(1)),
                    opt("model", str()),
                    opt("effort", enum_of(effort_levels)),
                    opt("launcher", launcher),
                    opt("executionEnvironment", string_t(1)),
                    opt("backendConfig", record_of(any_t())),
                    opt("backendArgs", record_of(object_of({req("extraArgs", array_of(string_t(1)))}))),
                    opt("timeoutSec", integer_t(1)),
                    opt("unrestricted", bool_t()),
                    opt("lockedFields", array_of(enum_of(lockable_fields)))});
}

Check assignment_config() {
  std::vector<Member> phases;
  for (const auto& phase : hook_phases) phases.push_back(opt(phase, array_of(hook_entry(phase))));
  auto max_retries = [](const json::value& v, const std::string& path, Problems& p) {
    integer_t(0)(v, path, p);
    if (v.is_int64() && v.as_int64() > 20) report(p, path, "at most 20");
  };
  return object_of({req("schemaVersion", literal_int(1)),
                    req("name", string_t(1)),
                    opt("cwd", string_t(1)),
                    opt("schedule", object_of({opt("at", string_t(1)),
                                               opt("delay", string_t(1)),
                                               opt("cron", string_t(1)),
                                               opt("timezone", string_t(1)),
                                               opt("mode", enum_of({"reuse", "reset", "clone"})),
                                               opt("continueOnFailure", bool_t())})),
                    opt("maxRetries", max_retries),
                    opt("callerInstructions", str()),
                    opt("vars", record_of(var_def())),
                    opt("hooks", object_of(phases)),
                    opt("lockedFields", array_of(enum_of(lockable_fields))),
                    opt("tasks", array_of(task_def()))});
}

Check definition_detail() {
  auto launcher_definition = union_on(
      "kind", {{"direct", object_of({req("kind", literal("direct")),
                                     req("name", literal("direct")),
                                     req("sourcePath", null_only()),
                                     req("root", literal("builtin"))})},
               {"prefix", object_of({req("kind", literal("prefix")),
                                     req("name", str()),
                                     req("command", str()),
                                     req("args", array_of(str())),
                                     req("sourcePath", str()),
                                     req("root", literal("config")),
                                     req("config", object_of({req("schemaVersion", literal_int(1)),
                                                              opt("name", string_t(1)),
                                                              req("command", string_t(1)),
                                                              opt("args", array_of(str()))}))})}});
  return union_on("kind", {{"agent", object_of({req("kind", literal("agent")),
                                                req("config", agent_config()),
                                                req("instructions", str()),
                                                req("sourcePath", str_or_null())})},
                           {"assignment", object_of({req("kind", literal("assignment")),
                                                     req("config", assignment_config()),
                                                     req("instructions", str()),
                                                     req("sourcePath", str())})},
                           {"launcher", object_of({req("kind", literal("launcher")), req("definition", launcher_definition)})},
                           {"task", object_of({req("kind", literal("task")), req("task", task_def()), req("sourcePath", str())})}});
}


}  // namespace

Problems check_definition_list(const json::value& v) {
  return run(object_of({req("kind", enum_of({"agent", "assignment", "launcher", "environment", "task"})),
                        req("entries", array_of(object_of({req("name", str()),
                                                           req("path", str_or_null()),
                                                           req("root", enum_of({"config", "builtin"}))}))),
                        req("warnings", array_of(str()))}),
             v);
}
Problems check_definition_detail(const json::value& v) { return run(definition_detail(), v); }

}  // namespace agentry::api::compat::testing
