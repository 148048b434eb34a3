#pragma once
// What a start or init request may override of its agent and assignment: fields the
// definitions lock, fields that choose the program a backend runs (locked unless the
// agent unlocks them), and the backend and its config named by the request.

#include "core/result.hpp"
#include "definitions/agent.hpp"
#include "engine/backend_catalog.hpp"
#include "engine/requests.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace agentry::engine {

bool locked(const std::vector<std::string>& locked_fields, std::string_view field);

/// CONFLICT when the caller overrides a field the definitions lock.
core::Result<void> check_overrides(const RunOverrides& o, const std::vector<std::string>& locked_fields);

/// CONFLICT when the caller overrides what picks the program a backend runs, or lets it
/// run less confined, and the agent has not unlocked it.
core::Result<void> check_default_locks(const RunOverrides& o, const definitions::AgentDefinition& agent);

/// VALIDATION_FAILED naming `field` when no backend plugin has that name.
core::Result<void> check_backend_available(const std::string& backend, const BackendCatalog& backends,
                                           const std::string& field, const std::string& whose);

/// overrides.backendConfig, flat or keyed by backend; a key naming another backend is an error.
core::Result<boost::json::object> override_config_for(const boost::json::object& given, const std::string& backend,
                                                      const BackendCatalog& backends);

}  // namespace agentry::engine
