#include "engine/run_overrides.hpp"

#include <boost/json/value_from.hpp>

#include <algorithm>

namespace agentry::engine {
namespace json = boost::json;
namespace defs = definitions;
using core::ErrorCode;

bool locked(const std::vector<std::string>& locked_fields, std::string_view field) {
  return std::find(locked_fields.begin(), locked_fields.end(), field) != locked_fields.end();
}

/// CONFLICT when the caller overrides a field the definitions lock.
core::Result<void> check_overrides(const RunOverrides& o, const std::vector<std::string>& locked_fields) {
  const std::pair<const char*, bool> given[] = {
      {"message", o.message.has_value()},       {"cwd", o.cwd.has_value()},
      {"model", o.model.has_value()},           {"effort", o.effort.has_value()},
      {"timeoutSec", o.timeout_sec.has_value()}, {"maxRetries", o.max_retries.has_value()},
      {"backendConfig", o.backend_config.has_value()}, {"launcher", o.launcher.has_value()},
      {"environment", o.environment.has_value()}, {"backend", o.backend.has_value()},
      {"unrestricted", o.unrestricted.has_value()},
  };
  for (auto [field, present] : given)
    if (present && locked(locked_fields, field))
      return core::fail(ErrorCode::conflict,
                        "field '" + std::string(field) + "' is locked by the agent or assignment definition",
                        {{"field", std::string("overrides.") + field}, {"lockedFields", json::value_from(locked_fields)}});
  return core::ok();
}

/// CONFLICT when the caller overrides what picks the program a backend runs, or lets it
/// run less confined, and the agent has not unlocked it
/// (definitions::default_locked_overrides()). Asking for what the agent has anyway (its
/// own backend), or for more confinement (unrestricted: false, or passive, below), needs
/// no consent.
core::Result<void> check_default_locks(const RunOverrides& o, const defs::AgentDefinition& agent) {
  const std::pair<const char*, bool> given[] = {
      {"backendConfig", o.backend_config.has_value()},
      {"launcher", o.launcher.has_value()},
      {"environment", o.environment.has_value()},
      {"backend", o.backend && *o.backend != agent.backend},
      {"unrestricted", o.unrestricted.value_or(false) && !agent.unrestricted}};
  for (auto [field, present] : given)
    if (present && !locked(agent.unlocked_fields, field))
      return core::fail(ErrorCode::conflict,
                        "field '" + std::string(field) + "' can choose the program agent '" + agent.name +
                            "' runs or how confined it is, so it is locked unless the agent allows it: add "
                            "'unlockedFields: [" + field + "]' to its definition",
                        {{"field", std::string("overrides.") + field}});
  return core::ok();
}

/// VALIDATION_FAILED naming `field` when no backend plugin has that name.
core::Result<void> check_backend_available(const std::string& backend, const BackendCatalog& backends,
                                           const std::string& field, const std::string& whose) {
  if (backends.has(backend)) return core::ok();
  json::array names;
  for (const auto& n : backends.names()) names.emplace_back(n);
  return core::fail(ErrorCode::validation, whose + " backend '" + backend + "', which is not available",
                    {{"field", field}, {"backend", backend}, {"available", std::move(names)}});
}

/// overrides.backendConfig, flat ({steps: ...}) or keyed by backend as in agent.md
/// ({mock: {steps: ...}}). A key naming another backend is an error, never ignored.
core::Result<json::object> override_config_for(const json::object& given, const std::string& backend,
                                               const BackendCatalog& backends) {
  for (const auto& [key, value] : given) {
    if (key == backend || !backends.has(std::string(key))) continue;
    return core::fail(ErrorCode::validation,
                      "overrides.backendConfig." + std::string(key) + " is for backend '" + std::string(key) +
                          "', but this run uses '" + backend + "'",
                      {{"field", "overrides.backendConfig." + std::string(key)}});
  }
  if (const auto* keyed = given.if_contains(backend)) {
    if (!keyed->is_object())
      return core::fail(ErrorCode::validation, "overrides.backendConfig." + backend + " must be an object",
                        {{"field", "overrides.backendConfig." + backend}});
    if (given.size() > 1)
      return core::fail(ErrorCode::validation,
                        "overrides.backendConfig mixes the keyed form (" + backend + ": {...}) with other keys",
                        {{"field", "overrides.backendConfig"}});
    return keyed->as_object();
  }
  return given;
}

}  // namespace agentry::engine
