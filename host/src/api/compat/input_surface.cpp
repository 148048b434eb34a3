#include "api/compat/input_surface.hpp"

#include "api/compat/compat_json.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

namespace agentry::api::compat {
namespace json = boost::json;
using detail::array_at;
using detail::member;
using detail::object_at;
using detail::string_at;
namespace {

constexpr std::int64_t default_timeout_sec = 3600;
constexpr std::int64_t default_max_retries = 3;

struct Setting {
  const char* key;
  const char* label;
  const char* description;
  const char* kind;
};

// The settings their form shows, in its order.
constexpr Setting settings[] = {
    {"cwd", "Working Directory", "The directory the run works in.", "string"},
    {"backend", "Backend", "The backend that runs the agent.", "enum"},
    {"launcher", "Launcher", "The program the agent's command is started through.", "launcher"},
    {"model", "Model", "The model the backend uses.", "model"},
    {"effort", "Effort", "How hard the model reasons.", "effort"},
    {"message", "Message", "What the run is asked to do first.", "textarea"},
    {"name", "Name", "A name for the run.", "string"},
    {"timeoutSec", "Timeout", "Seconds an attempt may take at most.", "number"},
    {"unrestricted", "Unrestricted", "Whether the agent may run any command.", "boolean"},
    {"maxRetries", "Max Retries", "Attempts after the first when tasks are left.", "number"},
};

struct Value {
  const char* status;  // concrete | unset | delegated
  json::value value;
  const char* source;
};

Value concrete(json::value v, const char* source) { return {"concrete", std::move(v), source}; }
Value unset() { return {"unset", nullptr, "available_override"}; }
Value delegated() { return {"delegated", nullptr, "available_override"}; }

std::set<std::string> names_in(const json::array& list) {
  std::set<std::string> out;
  for (const auto& v : list)
    if (v.is_string()) out.emplace(v.as_string());
  return out;
}

std::string label_of(const std::string& key) {
  std::string out;
  bool start = true;
  for (char c : key) {
    if (c == '_' || c == '-') {
      if (!out.empty() && out.back() != ' ') out += ' ';
      start = true;
      continue;
    }
    out += start ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    start = false;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

json::object run_input_surface(const json::object& agent, const json::object& assignment,
                               const std::vector<std::string>& backends) {
  std::set<std::string> locked = names_in(array_at(agent, "lockedFields"));
  for (const auto& f : names_in(array_at(assignment, "lockedFields"))) locked.insert(f);
  const auto unlocked = names_in(array_at(agent, "unlockedFields"));
  auto value_of = [&](const std::string& key) -> Value {
    const auto* v = member(agent, key);
    if (key == "cwd") {
      const auto* cwd = member(assignment, "cwd");
      return cwd && cwd->is_string() ? concrete(*cwd, "assignment") : unset();
    }
    if (key == "backend") return concrete(json::value(string_at(agent, "backend")), "agent");
    if (key == "launcher") return v && !v->is_null() ? concrete(*v, "agent") : unset();
    if (key == "model" || key == "effort") return v && v->is_string() ? concrete(*v, "agent") : delegated();
    if (key == "message") {
      const auto* m = member(assignment, "message");
      return m && m->is_string() && !m->as_string().empty() ? concrete(*m, "assignment") : unset();
    }
    if (key == "name") return unset();
    if (key == "timeoutSec") {
      const auto t = detail::int_at(agent, "timeoutSec", default_timeout_sec);
      return concrete(t, t == default_timeout_sec ? "schema_default" : "agent");
    }
    if (key == "unrestricted") {
      const bool u = !member(agent, "unrestricted") || detail::bool_at(agent, "unrestricted");
      return concrete(u, u ? "schema_default" : "agent");
    }
    const auto retries = assignment.empty() ? default_max_retries : detail::int_at(assignment, "maxRetries", default_max_retries);
    return concrete(retries, retries == default_max_retries ? "run_loop_default" : "assignment");
  };
  json::array run_settings;
  for (const auto& s : settings) {
    const std::string key = s.key;
    bool is_locked = locked.count(key) > 0;
    bool editable = !is_locked;
    // In agentry a run's backend, restriction and launcher (what chooses the program, or
    // how confined it is) are its agent's unless the agent unlocks them: fixed otherwise.
    if (key == "backend" || key == "unrestricted" || key == "launcher") {
      editable = !is_locked && unlocked.count(key) > 0;
      is_locked = !editable;
    } else if (key == "name") {
      editable = true;
      is_locked = false;
    }
    auto v = value_of(key);
    json::object field{{"key", key},
                       {"label", s.label},
                       {"description", s.description},
                       {"section", key == "cwd" || key == "name" ? "context" : "execution"},
                       {"inputKind", s.kind},
                       {"valueStatus", v.status},
                       {"value", std::move(v.value)},
                       {"editable", editable},
                       {"locked", is_locked},
                       {"hiddenWhenUnset", !editable && std::string_view(v.status) != "concrete"},
                       {"source", v.source}};
    if (key == "backend") {
      json::array names{json::value(string_at(agent, "backend"))};
      if (editable)
        for (const auto& name : backends)
          if (name != string_at(agent, "backend")) names.emplace_back(name);
      field["enumValues"] = std::move(names);
    }
    if (key == "effort")
      field["enumValues"] = json::array{"off", "minimal", "low", "medium", "high", "xhigh", "max"};
    run_settings.push_back(std::move(field));
  }
  json::array inputs;
  for (const auto& [name, spec_value] : object_at(assignment, "vars")) {
    if (!spec_value.is_object()) continue;
    const auto& spec = spec_value.as_object();
    const auto sources = names_in(array_at(spec, "sources"));
    if (!sources.empty() && !sources.count("web")) continue;  // a web caller may not give it
    const auto* fallback = member(spec, "default");
    const bool has_default = fallback && !fallback->is_null();
    const std::string type = string_at(spec, "type");
    json::object field{{"key", name},
                       {"label", label_of(std::string(name))},
                       {"description", string_at(spec, "description")},
                       {"section", "task"},
                       {"inputKind", type == "number" || type == "boolean" || type == "enum" ? type : "string"},
                       {"valueStatus", has_default ? "concrete" : "unset"},
                       {"value", has_default ? *fallback : json::value(nullptr)},
                       {"editable", true},
                       {"locked", false},
                       {"hiddenWhenUnset", false},
                       {"source", has_default ? "var_default" : "available_override"}};
    if (detail::bool_at(spec, "required") && string_at(spec, "requiredAt") != "prepare") field["required"] = true;
    if (type == "enum") field["enumValues"] = array_at(spec, "values");
    inputs.push_back(std::move(field));
  }
  return json::object{{"runSettings", std::move(run_settings)}, {"assignmentInputs", std::move(inputs)}};
}

}  // namespace agentry::api::compat
