// The model section of the browser backend's configuration (backendConfig.browser.model):
// which API, where, which model, where the key is, and the loop's limits. Shared by the
// model mode of an attempt and by the ask extension, so both validate the same way.
#pragma once

#include <boost/json/value.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace agentry::browser {

enum class ModelApi { openai_responses, anthropic_messages };

struct ModelSettings {
  ModelApi api = ModelApi::openai_responses;
  std::string base_url;        // without a trailing '/'
  std::string model;
  std::string api_key_env;     // empty: no key is sent (a local endpoint)
  std::string api_key;         // the value of api_key_env; never logged
  int max_steps = 30;          // model calls per attempt
  std::chrono::milliseconds request_timeout{120000};
  int max_tokens = 4096;       // the reply's limit (Anthropic requires one)
  bool max_tokens_given = false;
};

// Reads `section` (the value of backendConfig.browser.model). `env` is the environment the
// key is looked up in (the start env over the daemon's); `fallback_model` is the run's
// "model" from the start config, used when the section names none. nullopt with `error`
// naming the field (backendConfig.browser.model.<field>) when something is wrong.
std::optional<ModelSettings> read_model_settings(const boost::json::value& section, const std::vector<std::string>& env,
                                                 const std::string& fallback_model, std::string& error);

}  // namespace agentry::browser
