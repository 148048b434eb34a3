#pragma once
// Typed variables an assignment declares, and how a run gives them values.
// Declarations are read from the assignment file; values are resolved when a run is
// initialized (and again on reconfigure, from the specs the run froze).

#include "core/result.hpp"
#include "definitions/env.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::definitions {

enum class VarType { string, number, boolean, enumeration };
/// Where a value may come from. cli and web are the caller's request; env is the
/// daemon's environment; parent is the parent run's resolved var of the same name.
/// A var lists the sources it allows in the order they are tried.
enum class VarSource { cli, web, env, parent };

std::string_view to_string(VarType type);  // "string", "number", "boolean", "enum"
std::optional<VarType> parse_var_type(std::string_view text);
std::string_view to_string(VarSource source);
std::optional<VarSource> parse_var_source(std::string_view text);
const std::vector<VarSource>& all_var_sources();
/// What a var without `sources` allows: the caller's value, from the command line or a
/// request (as agent-runner does). env and parent must be asked for.
const std::vector<VarSource>& default_var_sources();

struct VarSpec {
  std::string name;
  VarType type = VarType::string;
  bool required = false;
  /// `requiredAt: prepare` (agent-runner's): a required var the request may leave out,
  /// because a module prepare hook sets it; it is checked once those hooks have run
  /// (check_prepare_required_vars). `requiredAt: initial`, the default, checks it at once.
  bool required_at_prepare = false;
  std::vector<VarSource> sources = default_var_sources();  // in the order they are tried
  std::optional<boost::json::value> default_value;  // already of `type`
  std::vector<std::string> values;                  // enum only: the allowed values
  std::string description;
  std::string env;  // the variable the env source reads (`env` or `envName`); empty = default_env_name(name)

  bool allows(VarSource source) const;
  /// `env`, or AGENTRY_VAR_<NAME> when it is empty.
  std::string env_name() const;
};

/// AGENTRY_VAR_ followed by the var name upper-cased.
std::string default_env_name(std::string_view var_name);

/// Var names are identifiers so they work as {{name}} and as env variable suffixes.
bool is_valid_var_name(std::string_view name);

/// Checks `value` against the spec's type and converts it: numbers accept JSON
/// numbers, and strings that are entirely a number when `text_input` (the value came
/// from the command line, the environment or a file); booleans accept true/false and
/// "true"/"false"/"1"/"0"; enums accept one of `values`. The error message says what
/// was expected (it does not name the var; callers add that).
core::Result<boost::json::value> coerce_var_value(const VarSpec& spec,
                                                  const boost::json::value& value,
                                                  bool text_input);

/// Resolved vars and where each value came from.
struct ResolvedVars {
  boost::json::object values;  // every declared var; null when it has no value
  /// The source that gave each var its value; absent for a default or no value.
  std::map<std::string, VarSource> origins;
};

/// Resolves every declared var: its sources are tried in the order the spec lists them
/// (the caller's value from `given` when `source` is among them, the env variable when
/// it is set and non-empty, the parent's var of the same name), then the default.
/// Optional vars with none of these resolve to null, and so do `requiredAt: prepare` ones
/// (checked later: check_prepare_required_vars). Values are checked and coerced to
/// the var's type; every problem (unknown names in `given`, missing required vars, bad
/// values) is reported in one VALIDATION_FAILED error whose details.problems name the
/// field "vars.<name>". A value read from the environment (or inherited from a parent
/// run) is never quoted in an error: it is often a secret.
core::Result<ResolvedVars> resolve_var_values(const std::vector<VarSpec>& specs,
                                              const boost::json::object& given, VarSource source,
                                              const EnvLookup& env,
                                              const boost::json::object* parent_vars = nullptr);
/// VALIDATION_FAILED naming the first `requiredAt: prepare` var that `values` still has
/// no value for (field "vars.<name>"): checked after a run's module prepare hooks.
core::Result<void> check_prepare_required_vars(const std::vector<VarSpec>& specs,
                                               const boost::json::object& values);

/// resolve_var_values without the origins.
core::Result<boost::json::object> resolve_vars(const std::vector<VarSpec>& specs,
                                               const boost::json::object& given,
                                               VarSource source, const EnvLookup& env,
                                               const boost::json::object* parent_vars = nullptr);

/// The specs as { name: { type, required, sources, default?, values?, description?, env,
/// envName } }, the same shape as `vars` in an assignment file (with the env default made
/// explicit; `envName`, agent-runner's spelling, carries the same value as `env`).
boost::json::object var_specs_to_json(const std::vector<VarSpec>& specs);
boost::json::object to_json(const VarSpec& spec);
/// Reads what var_specs_to_json wrote (a run's frozen specs); VALIDATION_FAILED if malformed.
core::Result<std::vector<VarSpec>> var_specs_from_json(const boost::json::object& json);

}  // namespace agentry::definitions
