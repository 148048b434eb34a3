#include "browser/settings.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string_view>

#include "agentry/plugin_common/environment.hpp"

namespace agentry::browser {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

struct SettingsError {
  std::string message;
};
[[noreturn]] void fail(std::string message) { throw SettingsError{std::move(message)}; }
struct ModelError {
  std::string message;
};

}  // namespace

const json::value* config_field(const json::object& bc, std::string_view key) {
  if (const json::value* nested = bc.if_contains("browser"); nested && nested->is_object())
    if (const json::value* v = nested->get_object().if_contains(key)) return v->is_null() ? nullptr : v;
  const json::value* v = bc.if_contains("browser." + std::string(key));
  if (v && !v->is_null()) return v;
  // The host hands a plugin its own section (agent.md's backendConfig.browser) directly.
  v = bc.if_contains(key);
  return v && !v->is_null() ? v : nullptr;
}

namespace {

constexpr std::array<std::string_view, 11> kActions = {"navigate", "click",    "type",     "press",
                                                       "scroll",   "read",     "screenshot", "back",
                                                       "waitFor",  "download", "finish"};

// The keys each action accepts (besides "action").
std::vector<std::string_view> keys_of(std::string_view action) {
  if (action == "navigate") return {"url"};
  if (action == "click" || action == "download") return {"selector", "ref"};
  if (action == "type") return {"selector", "ref", "text"};
  if (action == "press") return {"key"};
  if (action == "scroll") return {"y"};
  if (action == "screenshot") return {"name"};
  if (action == "waitFor") return {"text", "selector", "timeoutMs"};
  if (action == "finish") return {"summary"};
  return {};  // read, back
}

bool is_string(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string();
}

Step parse_step(const json::value& value) {
  if (!value.is_object()) fail("a step must be a JSON object");
  const json::object& obj = value.get_object();
  Step step;
  if (const json::value* a = obj.if_contains("action")) {
    if (!a->is_string()) fail("\"action\" must be a string");
    step.action = std::string(a->get_string());
    for (const auto& kv : obj)
      if (kv.key() != "action") step.args[kv.key()] = kv.value();
  } else if (obj.size() == 1) {  // {"navigate": {"url": ...}} or {"read": {}} / {"back": true}
    step.action = std::string(obj.begin()->key());
    const json::value& inner = obj.begin()->value();
    if (inner.is_object()) step.args = inner.get_object();
    else if (!inner.is_null() && !inner.is_bool()) fail("\"" + step.action + "\": the value must be an object");
  } else {
    fail("a step needs \"action\" (one of: navigate, click, type, press, scroll, read, screenshot, back, "
         "waitFor, download, finish)");
  }
  bool known = false;
  for (auto k : kActions) known = known || k == step.action;
  if (!known)
    fail("unknown action \"" + step.action + "\" (known: navigate, click, type, press, scroll, read, screenshot, "
         "back, waitFor, download, finish)");
  const auto allowed = keys_of(step.action);
  for (const auto& kv : step.args) {
    bool ok = false;
    for (auto k : allowed) ok = ok || kv.key() == k;
    if (!ok) fail("\"" + step.action + "\": unknown key \"" + std::string(kv.key()) + "\"");
  }
  const std::string& a = step.action;
  const auto need_string = [&](std::string_view key) {
    if (!is_string(step.args, key)) fail("\"" + a + "\" needs \"" + std::string(key) + "\" (a string)");
  };
  const auto need_target = [&] {
    const bool sel = is_string(step.args, "selector"), ref = is_string(step.args, "ref");
    if (sel == ref) fail("\"" + a + "\" needs exactly one of \"selector\" or \"ref\" (a string)");
  };
  if (a == "navigate") need_string("url");
  if (a == "click" || a == "download") need_target();
  if (a == "type") need_target(), need_string("text");
  if (a == "press") need_string("key");
  if (a == "scroll") {
    const json::value* y = step.args.if_contains("y");
    if (!y || !y->is_number()) fail("\"scroll\" needs \"y\" (a number of pixels, negative scrolls up)");
  }
  if (a == "screenshot" && step.args.contains("name")) need_string("name");
  if (a == "waitFor") {
    const bool text = is_string(step.args, "text"), sel = is_string(step.args, "selector");
    if (text == sel) fail("\"waitFor\" needs exactly one of \"text\" or \"selector\" (a string)");
    if (const json::value* t = step.args.if_contains("timeoutMs"); t && !(t->is_int64() && t->get_int64() > 0))
      fail("\"waitFor\": \"timeoutMs\" must be a positive integer");
  }
  if (a == "finish" && step.args.contains("summary")) need_string("summary");
  return step;
}

std::string prompt_of(const std::string& input_json) {  // "" when absent
  json::error_code ec;
  const json::value input = json::parse(input_json, ec);
  if (ec || !input.is_object()) return {};
  const json::value* prompt = input.get_object().if_contains("prompt");
  return prompt && prompt->is_string() ? std::string(prompt->get_string()) : std::string();
}

std::string env_value(const std::vector<std::string>& env, std::string_view key) {
  if (auto v = plugin_common::find_variable(env, key)) return std::string(*v);
  return {};
}

// A run id as one path component: letters, digits, '-', '_' and '.' kept, the rest '_'.
std::string path_component(const std::string& id) {
  std::string out;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.';
    out.push_back(ok ? c : '_');
  }
  if (out.empty() || out == "." || out == "..") out = "run";
  return out;
}

}  // namespace

std::optional<Step> step_from_json(const json::value& value, std::string& error) {
  try {
    return parse_step(value);
  } catch (const SettingsError& e) {
    error = e.message;
    return std::nullopt;
  }
}

std::string default_profile_dir(const std::string& run_id, const std::vector<std::string>& env) {
  const std::string leaf = path_component(run_id);
  if (auto home = env_value(env, "AGENTRY_HOME"); !home.empty()) return (fs::path(home) / "browser-profiles" / leaf).string();
  if (auto xdg = env_value(env, "XDG_STATE_HOME"); !xdg.empty())
    return (fs::path(xdg) / "agentry" / "browser-profiles" / leaf).string();
  if (auto home = env_value(env, "HOME"); !home.empty())
    return (fs::path(home) / ".local" / "state" / "agentry" / "browser-profiles" / leaf).string();
  return (fs::temp_directory_path() / "agentry-browser-profiles" / leaf).string();
}

Settings read_settings(const plugin::StartParams& params) {
  Settings s;
  s.workspace = params.workspace_path;
  // The daemon's environment with the start env on top (the start env wins).
  plugin_common::EnvironmentBuilder builder = plugin_common::EnvironmentBuilder::inherited();
  for (const std::string& entry : params.env) builder.set_entry(entry);
  s.env = builder.take();
  std::size_t index = 0;
  try {
    json::error_code ec;
    json::value config = params.config_json.empty() ? json::value(json::object()) : json::parse(params.config_json, ec);
    if (ec || !config.is_object()) fail("config_json is not a JSON object");
    json::object bc;
    if (const json::value* v = config.get_object().if_contains("backendConfig"); v && v->is_object()) bc = v->get_object();

    if (const json::value* v = config_field(bc, "chromium")) {
      if (!v->is_string() || v->get_string().empty()) fail("backendConfig.browser.chromium must be a non-empty string");
      s.chromium = std::string(v->get_string());
    } else if (auto env = env_value(s.env, "AGENTRY_CHROMIUM"); !env.empty()) {
      s.chromium = env;
    } else {
      s.chromium = "chromium";
    }
    if (const json::value* v = config_field(bc, "actionTimeoutMs")) {
      if (!v->is_int64() || v->get_int64() < 100 || v->get_int64() > 600000)
        fail("backendConfig.browser.actionTimeoutMs must be an integer from 100 to 600000");
      s.action_timeout = std::chrono::milliseconds(v->get_int64());
    }
    if (const json::value* v = config_field(bc, "liveView")) {
      if (!v->is_bool()) fail("backendConfig.browser.liveView must be true or false");
      s.live_view = v->get_bool();
    }
    if (const json::value* v = config_field(bc, "args")) {
      if (!v->is_array()) fail("backendConfig.browser.args must be an array of strings");
      for (const auto& a : v->get_array()) {
        if (!a.is_string()) fail("backendConfig.browser.args must be an array of strings");
        s.extra_args.emplace_back(a.get_string());
      }
    }
    if (const json::value* v = config_field(bc, "profileDir")) {
      if (!v->is_string() || v->get_string().empty() || v->get_string()[0] != '/')
        fail("backendConfig.browser.profileDir must be an absolute path");
      s.profile_dir = std::string(v->get_string());
    } else {
      s.profile_dir = default_profile_dir(params.run_id, s.env);
    }

    s.prompt = prompt_of(params.input_json);
    if (const json::value* model = config_field(bc, "model")) {
      std::string why, fallback;
      if (const json::value* m = config.get_object().if_contains("model"); m && m->is_string()) fallback = m->get_string();
      s.model = read_model_settings(*model, s.env, fallback, why);
      if (!s.model) throw ModelError{why};
    }

    if (const json::value* steps = config_field(bc, "steps")) {
      if (!steps->is_array()) fail("backendConfig.browser.steps must be an array");
      for (const auto& step : steps->get_array()) ++index, s.steps.push_back(parse_step(step));
    } else {
      std::istringstream in{s.prompt};
      for (std::string line; std::getline(in, line);) {
        if (line.rfind("@browser ", 0) != 0) continue;
        ++index;
        json::value step = json::parse(std::string_view(line).substr(9), ec);
        if (ec) fail("not a JSON object: " + line.substr(9));
        s.steps.push_back(parse_step(step));
      }
      if (s.steps.empty() && !s.model)
        fail("no script and no model: give backendConfig.browser.steps (a JSON array), prompt lines beginning "
             "\"@browser \" followed by one step object, or backendConfig.browser.model for the model mode");
    }
    if (s.steps.empty() && s.prompt.empty()) throw ModelError{"the prompt is empty: there is no task for the model"};
    if (!s.steps.empty()) s.model.reset();  // a script wins: the model section only serves asks then
    for (std::size_t i = 0; i + 1 < s.steps.size(); ++i)
      if (s.steps[i].action == "finish") index = i + 1, fail("\"finish\" must be the last step");
  } catch (const ModelError& e) {
    s.steps.clear();
    s.model.reset();
    s.error = "browser model: " + e.message;
  } catch (const SettingsError& e) {
    s.steps.clear();
    s.model.reset();
    s.error = "browser script: " + (index > 0 ? "step " + std::to_string(index) + ": " : std::string()) + e.message;
  }
  return s;
}

}  // namespace agentry::browser
