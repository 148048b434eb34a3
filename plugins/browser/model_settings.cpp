#include "browser/model_settings.hpp"

#include <boost/json/object.hpp>

#include <array>
#include <string_view>

#include "agentry/plugin_common/environment.hpp"
#include "agentry/plugin_common/runtime/url.hpp"

namespace agentry::browser {
namespace json = boost::json;

namespace {

constexpr std::string_view kPrefix = "backendConfig.browser.model";
constexpr std::array<std::string_view, 7> kSettingKeys = {"api",      "baseUrl",          "model",    "apiKeyEnv",
                                                   "maxSteps", "requestTimeoutMs", "maxTokens"};

std::string name(std::string_view key) { return std::string(kPrefix) + "." + std::string(key); }

// An integer field within [low, high], or the default when absent; false (with error) when wrong.
bool read_int(const json::object& o, std::string_view key, int64_t low, int64_t high, int64_t& out, std::string& error) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return true;
  if (!v->is_int64() || v->get_int64() < low || v->get_int64() > high) {
    error = name(key) + " must be an integer from " + std::to_string(low) + " to " + std::to_string(high);
    return false;
  }
  out = v->get_int64();
  return true;
}

// A string field; false (with error) when present but not a non-empty string.
bool read_string(const json::object& o, std::string_view key, std::string& out, std::string& error) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return true;
  if (!v->is_string() || v->get_string().empty()) {
    error = name(key) + " must be a non-empty string";
    return false;
  }
  out = std::string(v->get_string());
  return true;
}

}  // namespace

std::optional<ModelSettings> read_model_settings(const json::value& section, const std::vector<std::string>& env,
                                                 const std::string& fallback_model, std::string& error) {
  const json::object* o = section.if_object();
  if (!o) {
    error = std::string(kPrefix) + " must be an object {api, baseUrl, model, apiKeyEnv?, maxSteps?, requestTimeoutMs?, maxTokens?}";
    return std::nullopt;
  }
  for (const auto& kv : *o) {
    bool known = false;
    for (auto k : kSettingKeys) known = known || kv.key() == k;
    if (!known) {
      error = std::string(kPrefix) + ": unknown field \"" + std::string(kv.key()) +
              "\" (known: api, baseUrl, model, apiKeyEnv, maxSteps, requestTimeoutMs, maxTokens)";
      return std::nullopt;
    }
  }
  ModelSettings s;
  std::string api;
  if (!read_string(*o, "api", api, error)) return std::nullopt;
  if (api == "openai-responses") s.api = ModelApi::openai_responses;
  else if (api == "anthropic-messages") s.api = ModelApi::anthropic_messages;
  else {
    error = name("api") + " must be \"openai-responses\" or \"anthropic-messages\"" +
            (api.empty() ? std::string(" (it is missing)") : ", not \"" + api + "\"");
    return std::nullopt;
  }
  if (!read_string(*o, "baseUrl", s.base_url, error)) return std::nullopt;
  if (s.base_url.empty()) {
    error = name("baseUrl") + " is missing (for example \"https://api.openai.com/v1\" or \"https://api.anthropic.com\")";
    return std::nullopt;
  }
  std::string why;
  plugin_common::runtime::UrlProblem problem{};
  if (!plugin_common::runtime::parse_net_url(s.base_url, {"http", "https"}, why, &problem)) {
    error = name("baseUrl") + " \"" + s.base_url + "\" " + why;
    if (problem == plugin_common::runtime::UrlProblem::user_info) error += "; name the key's variable in apiKeyEnv";
    return std::nullopt;
  }
  if (s.base_url.find('?') != std::string::npos) {
    error = name("baseUrl") + " must not have a query: the API path is appended to it";
    return std::nullopt;
  }
  while (!s.base_url.empty() && s.base_url.back() == '/') s.base_url.pop_back();
  if (!read_string(*o, "model", s.model, error)) return std::nullopt;
  if (s.model.empty()) s.model = fallback_model;
  if (s.model.empty()) {
    error = name("model") + " is missing (the model name the API expects), and the agent names no model";
    return std::nullopt;
  }
  if (!read_string(*o, "apiKeyEnv", s.api_key_env, error)) return std::nullopt;
  if (!s.api_key_env.empty() && !plugin_common::valid_variable_name(s.api_key_env)) {
    error = name("apiKeyEnv") + " must be an environment variable's name, not \"" + s.api_key_env + "\"";
    return std::nullopt;
  }
  if (!s.api_key_env.empty()) {
    const auto key = plugin_common::find_variable(env, s.api_key_env);
    if (!key || key->empty()) {
      error = name("apiKeyEnv") + " names " + s.api_key_env + ", which is not set (neither in the run's env nor the daemon's)";
      return std::nullopt;
    }
    s.api_key = std::string(*key);
  }
  int64_t steps = s.max_steps, timeout = s.request_timeout.count(), tokens = s.max_tokens;
  if (!read_int(*o, "maxSteps", 1, 1000, steps, error)) return std::nullopt;
  if (!read_int(*o, "requestTimeoutMs", 1000, 3600000, timeout, error)) return std::nullopt;
  if (!read_int(*o, "maxTokens", 1, 1000000, tokens, error)) return std::nullopt;
  s.max_steps = static_cast<int>(steps);
  s.request_timeout = std::chrono::milliseconds(timeout);
  s.max_tokens = static_cast<int>(tokens);
  s.max_tokens_given = o->contains("maxTokens");
  return s;
}

}  // namespace agentry::browser
