#include "api/compat/compat_definitions.hpp"

#include "api/compat/compat_json.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <array>
#include <string_view>

namespace agentry::api::compat {
namespace json = boost::json;
using namespace detail;

namespace {

constexpr std::array<std::string_view, 7> effort_levels{"off", "minimal", "low", "medium", "high", "xhigh", "max"};
constexpr std::array<std::string_view, 5> hook_phases{"prepare", "beforeAttempt", "afterAttempt", "afterExit",
                                                      "taskTransition"};

json::array locked_fields(const json::object& o) {
  json::array out;
  for (const auto& f : array_at(o, "lockedFields"))
    if (f.is_string() && one_of(lockable_fields, f.as_string())) out.push_back(f);
  return out;
}

std::string warning_text(const json::value& w) {
  if (w.is_string()) return std::string(w.as_string());
  if (!w.is_object()) return {};
  std::string out;
  for (const char* key : {"path", "field", "message"}) {
    const auto part = string_at(w.as_object(), key);
    if (part.empty()) continue;
    if (!out.empty()) out += ": ";
    out += part;
  }
  return out;
}

json::array warnings_of(const json::object& native) {
  json::array out;
  for (const auto& w : array_at(native, "warnings")) out.emplace_back(warning_text(w));
  return out;
}

/// Integers of a `when` value: ours keeps every value as a string.
json::value integer_list(const json::value& v) {
  json::array out;
  if (v.is_array())
    for (const auto& item : v.as_array()) {
      if (item.is_int64()) out.push_back(item);
      else if (item.is_string()) {
        try {
          out.emplace_back(std::stoll(std::string(item.as_string())));
        } catch (const std::exception&) {
        }
      }
    }
  return out;
}

json::value when_of(const json::object& native_when) {
  json::object out;
  for (const auto& [key, value] : native_when) {
    if (key == "task") out["taskIds"] = value;
    else if (key == "from") out["fromStatus"] = value;
    else if (key == "to") out["toStatus"] = value;
    else if (key == "session") {
      if (auto list = integer_list(value); !list.as_array().empty()) out["sessionIndex"] = std::move(list);
    }
  }
  return out.empty() ? json::value(nullptr) : json::value(std::move(out));
}

json::object task_of(const json::object& t) {
  json::array hooks;
  for (const auto& h : array_at(t, "hooks"))
    if (h.is_object()) hooks.push_back(ref_hook_entry(h.as_object()));
  return {{"id", string_at(t, "id")},
          {"title", string_at(t, "title")},
          {"body", string_at(t, "body")},
          {"hooks", std::move(hooks)}};
}

json::object var_of(const json::object& v) {
  json::object out{{"type", string_at(v, "type")}, {"required", bool_at(v, "required")}};
  json::array sources;
  bool from_env = false;
  for (const auto& s : array_at(v, "sources"))
    if (s.is_string()) {
      from_env = from_env || s.as_string() == "env";
      sources.push_back(s);
    }
  out["sources"] = std::move(sources);
  if (from_env && !string_at(v, "envName").empty()) out["envName"] = string_at(v, "envName");
  if (const auto* d = v.if_contains("default")) out["default"] = *d;
  if (const auto description = string_at(v, "description"); !description.empty()) out["description"] = description;
  if (const auto* values = v.if_contains("values"); values && values->is_array()) out["values"] = *values;
  return out;
}

json::object agent_config(const json::object& a) {
  json::object c{{"schemaVersion", 1}, {"name", string_at(a, "name")}, {"backend", string_at(a, "backend")}};
  if (const auto model = string_at(a, "model"); !model.empty()) c["model"] = model;
  if (const auto effort = string_at(a, "effort"); one_of(effort_levels, effort)) c["effort"] = effort;
  if (const auto* launcher = a.if_contains("launcher")) {
    if (launcher->is_string()) {
      c["launcher"] = *launcher;
    } else if (launcher->is_object()) {
      const auto& argv = array_at(launcher->as_object(), "inline");
      if (!argv.empty() && argv.front().is_string())
        c["launcher"] = json::object{{"command", argv.front()}, {"args", json::array(argv.begin() + 1, argv.end())}};
    }
  }
  if (const auto env = string_at(a, "executionEnvironment"); !env.empty()) c["executionEnvironment"] = env;
  if (const auto& config = object_at(a, "backendConfig"); !config.empty()) c["backendConfig"] = config;
  if (const auto& args = object_at(a, "backendArgs"); !args.empty()) c["backendArgs"] = args;
  // Ours allows 0 (no limit); theirs needs a positive number and defaults to 3600.
  if (const auto timeout = int_at(a, "timeoutSec"); timeout > 0) c["timeoutSec"] = timeout;
  c["unrestricted"] = bool_at(a, "unrestricted");
  c["lockedFields"] = locked_fields(a);
  return c;
}

json::object assignment_config(const json::object& a) {
  json::object c{{"schemaVersion", 1}, {"name", string_at(a, "name")}};
  if (const auto cwd = string_at(a, "cwd"); !cwd.empty()) c["cwd"] = cwd;
  if (const auto& schedule = object_at(a, "schedule"); !schedule.empty()) {
    json::object s;
    for (const char* key : {"at", "delay", "cron", "timezone", "mode", "continueOnFailure"})
      if (const auto* v = schedule.if_contains(key)) s[key] = *v;
    c["schedule"] = std::move(s);
  }
  c["maxRetries"] = std::clamp<std::int64_t>(int_at(a, "maxRetries"), 0, 20);
  if (const auto text = string_at(a, "callerInstructions"); !text.empty()) c["callerInstructions"] = text;
  json::object vars;
  for (const auto& [name, spec] : object_at(a, "vars"))
    if (spec.is_object()) vars[name] = var_of(spec.as_object());
  c["vars"] = std::move(vars);
  json::object hooks;
  for (auto phase : hook_phases) hooks[phase] = json::array();
  for (const auto& h : array_at(a, "hooks")) {
    if (!h.is_object()) continue;
    const auto phase = string_at(h.as_object(), "phase");
    if (one_of(hook_phases, phase)) hooks[phase].as_array().push_back(ref_hook_entry(h.as_object()));
  }
  c["hooks"] = std::move(hooks);
  c["lockedFields"] = locked_fields(a);
  json::array tasks;
  for (const auto& t : array_at(a, "tasks"))
    if (t.is_object()) tasks.push_back(task_of(t.as_object()));
  c["tasks"] = std::move(tasks);
  return c;
}

json::object launcher_definition(const json::object& l, const std::string& source_path) {
  const auto& argv = array_at(l, "command");
  const std::string program = !argv.empty() && argv.front().is_string() ? std::string(argv.front().as_string()) : "";
  json::array args;
  for (std::size_t i = 1; i < argv.size(); ++i) args.push_back(argv[i]);
  const auto name = string_at(l, "name");
  return {{"kind", "prefix"},
          {"name", name},
          {"command", program},
          {"args", args},
          {"sourcePath", source_path},
          {"root", "config"},
          {"config", json::object{{"schemaVersion", 1}, {"name", name}, {"command", program}, {"args", args}}}};
}

}  // namespace

json::object ref_hook_entry(const json::object& h) {
  json::object out;
  const auto& run = array_at(h, "run");
  const auto builtin = string_at(h, "builtin");
  out["builtin"] = builtin.empty() ? std::string("command") : builtin;
  json::object with = object_at(h, "with");
  if (!run.empty()) with["argv"] = run;
  if (!with.empty()) out["with"] = std::move(with);
  if (auto when = when_of(object_at(h, "when")); !when.is_null()) out["when"] = std::move(when);
  return out;
}

json::object ref_definition_list(const json::object& n) {
  const auto kind = string_at(n, "kind");
  json::array entries;
  if (kind == "launcher") entries.push_back(json::object{{"name", "direct"}, {"path", nullptr}, {"root", "builtin"}});
  for (const auto& e : array_at(n, "entries")) {
    if (!e.is_object()) continue;
    const auto& o = e.as_object();
    entries.push_back(json::object{{"name", string_at(o, "name")}, {"path", nonempty_or_null(o, "sourcePath")}, {"root", "config"}});
  }
  return {{"kind", kind}, {"entries", std::move(entries)}, {"warnings", warnings_of(n)}};
}

json::object ref_direct_launcher_detail() {
  return {{"kind", "launcher"},
          {"definition", json::object{{"kind", "direct"}, {"name", "direct"}, {"sourcePath", nullptr}, {"root", "builtin"}}}};
}

json::object ref_definition_detail(const json::object& n) {
  const auto kind = string_at(n, "kind");
  const auto source_path = string_at(n, "sourcePath");
  if (kind == "agent") {
    const auto& a = object_at(n, "agent");
    return {{"kind", "agent"},
            {"config", agent_config(a)},
            {"instructions", string_at(a, "instructions")},
            {"sourcePath", nonempty_or_null(n, "sourcePath")}};
  }
  if (kind == "assignment") {
    const auto& a = object_at(n, "assignment");
    return {{"kind", "assignment"},
            {"config", assignment_config(a)},
            {"instructions", string_at(a, "instructions")},
            {"sourcePath", source_path}};
  }
  if (kind == "launcher") return {{"kind", "launcher"}, {"definition", launcher_definition(object_at(n, "launcher"), source_path)}};
  if (kind == "task") return {{"kind", "task"}, {"task", task_of(object_at(n, "task"))}, {"sourcePath", source_path}};
  return n;
}

}  // namespace agentry::api::compat
