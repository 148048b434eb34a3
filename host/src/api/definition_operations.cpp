// Operations reading definitions from the config directory (and a project's .agentry/).

#include "api/operations.hpp"
#include "definitions/json.hpp"
#include "definitions/loader.hpp"

namespace agentry::api {
namespace json = boost::json;
namespace defs = definitions;
namespace fs = std::filesystem;
using core::Result;

namespace {

struct DefinitionQuery {
  defs::Roots roots;
  std::optional<fs::path> cwd;
  std::string target;
};

Result<DefinitionQuery> query_of(const ApiContext& ctx, const OperationRequest& r, bool with_target) {
  auto params = with_target ? params_of(r, {"cwd", "target"}) : params_of(r, {"cwd"});
  if (!params) return params.failure();
  DefinitionQuery q;
  auto cwd = params->optional_string("cwd");
  if (!cwd) return cwd.failure();
  if (*cwd) {
    if ((*cwd)->empty() || (**cwd)[0] != '/')
      return core::fail(core::ErrorCode::invalid_request, "cwd must be an absolute path", {{"parameter", "cwd"}});
    q.cwd = fs::path(**cwd);
  }
  // The project at or above cwd, read under its trust (engine/project_trust.hpp).
  q.roots = ctx.engine.projects().roots_for(q.cwd);
  if (with_target) {
    auto target = params->required_string("target");
    if (!target) return target.failure();
    q.target = *target;
  }
  return q;
}

/// Registers "<plural>.list" and "<plural>.get" for one kind.
template <class List, class Load>
void add_kind(Operations& ops, ApiContext& ctx, const std::string& method_prefix, const std::string& list_key,
              const std::string& detail_key, List list, Load load) {
  ops.add(method_prefix + ".list", [&ctx, list, list_key](const OperationRequest& r) -> Result<OperationResult> {
    auto q = query_of(ctx, r, false);
    if (!q) return q.failure();
    json::object out{{list_key, defs::to_json(list(q->roots))}};
    // Whose definitions these are: the listing's warnings say what an untrusted project may not do.
    if (q->roots.project_dir)
      out["project"] = json::object{{"projectDir", q->roots.project_dir->string()}, {"trusted", q->roots.project_trusted}};
    return OperationResult{std::move(out)};
  });
  ops.add(method_prefix + ".get", [&ctx, load, detail_key](const OperationRequest& r) -> Result<OperationResult> {
    auto q = query_of(ctx, r, true);
    if (!q) return q.failure();
    auto definition = load(q->roots, q->target, q->cwd);
    if (!definition) return definition.failure();
    return OperationResult{json::object{{detail_key, defs::to_detail_json(*definition)}}};
  });
}

}  // namespace

void add_definition_operations(Operations& ops, ApiContext& ctx) {
  add_kind(ops, ctx, "agents", "agents", "agent", &defs::list_agents, &defs::load_agent);
  add_kind(ops, ctx, "assignments", "assignments", "assignment", &defs::list_assignments, &defs::load_assignment);
  add_kind(ops, ctx, "launchers", "launchers", "launcher", &defs::list_launchers, &defs::load_launcher);
  add_kind(ops, ctx, "environments", "environments", "environment", &defs::list_environments,
           &defs::load_environment);
  add_kind(ops, ctx, "taskDefinitions", "taskDefinitions", "taskDefinition", &defs::list_task_definitions,
           &defs::load_task_definition);
}

}  // namespace agentry::api
