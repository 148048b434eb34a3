// What one attempt of the browser backend is told to do, read from the start params:
// the Chromium binary, the script, the timeouts, the live view switch and the per-run
// profile directory. Every field is read from backendConfig.browser.<name> (a nested
// object), the dotted key backendConfig["browser.<name>"], or backendConfig.<name> (the
// host passes the agent's backendConfig.browser section as the plugin's backendConfig).
#pragma once

#include <boost/json/object.hpp>

#include <boost/json/value.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "agentry/plugin/cpp/params.hpp"
#include "browser/model_settings.hpp"

namespace agentry::browser {

// One script step: {"navigate": {"url": ...}} or {"action": "navigate", "url": ...}.
struct Step {
  std::string action;         // navigate, click, type, press, scroll, read, screenshot, back,
                              // waitFor, download, finish
  boost::json::object args;   // the action's arguments (without "action")
};

struct Settings {
  std::string chromium;          // as configured ("chromium" by default): resolved at launch
  std::vector<std::string> env;  // the child's environment (the daemon's plus the start env)
  std::vector<Step> steps;        // script mode; empty in model mode
  std::optional<ModelSettings> model;  // model mode: backendConfig.browser.model and no script
  std::string prompt;            // input_json's prompt: the model's task (or the follow-up on a resume)
  std::chrono::milliseconds action_timeout{15000};
  bool live_view = true;         // screencast frames as events of type 15 (to a host of ABI 1.2+)
  std::string profile_dir;       // absolute; kept across attempts of the run
  std::string workspace;         // the run's working directory (artifacts go below it)
  std::vector<std::string> extra_args;  // backendConfig.browser.args, appended to the flags
  std::string error;             // a configuration or script mistake: the attempt fails with it
};

// Never throws for bad input: a mistake lands in Settings::error, naming the field/step.
// With a script (backendConfig steps or "@browser" prompt lines) the attempt plays it; else,
// with a model section, the model chooses the actions; with neither, Settings::error says so.
Settings read_settings(const plugin::StartParams& params);

// One step from its JSON form (either shape above); nullopt with `error` saying what is wrong.
std::optional<Step> step_from_json(const boost::json::value& value, std::string& error);

// backendConfig.browser.<key>, backendConfig["browser.<key>"] or backendConfig.<key>, or nullptr.
const boost::json::value* config_field(const boost::json::object& backend_config, std::string_view key);

// The default profile directory of a run: $AGENTRY_HOME/browser-profiles/<run>, else
// $XDG_STATE_HOME/agentry/browser-profiles/<run>, else
// $HOME/.local/state/agentry/browser-profiles/<run>, else <tmp>/agentry-browser-profiles/<run>.
// `env` is the start env (it wins over the daemon's own environment).
std::string default_profile_dir(const std::string& run_id, const std::vector<std::string>& env);

}  // namespace agentry::browser
