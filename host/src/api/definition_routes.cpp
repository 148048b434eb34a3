// HTTP routes for definitions: agents, assignments, launchers and task definitions,
// read from the config directory (and a project's .agentry/ when ?cwd= is given).

#include "api/api_context.hpp"
#include "api/route_support.hpp"
#include "api/router.hpp"
#include "definitions/json.hpp"
#include "definitions/loader.hpp"

namespace agentry::api {
namespace json = boost::json;
namespace defs = definitions;
namespace fs = std::filesystem;

namespace {

struct DefinitionQuery {
  defs::Roots roots;
  std::optional<fs::path> cwd;
};

core::Result<DefinitionQuery> parse_definition_query(const ApiContext& ctx, const HttpRequest& r) {
  if (auto ok = allow_query(r, {"cwd"}); !ok) return ok.failure();
  DefinitionQuery q;
  q.roots.config_dir = ctx.engine.config().config_dir;
  if (auto* cwd = r.query_param("cwd")) {
    if (cwd->empty() || (*cwd)[0] != '/')
      return core::fail(core::ErrorCode::invalid_request, "cwd must be an absolute path", {{"parameter", "cwd"}});
    q.cwd = fs::path(*cwd);
    q.roots.project_dir = q.cwd;
  }
  return q;
}

/// Registers GET /api/<plural> and GET /api/<plural>/:target for one kind.
template <class List, class Load>
void add_kind(Router& router, ApiContext& ctx, const std::string& plural, const std::string& list_key,
              const std::string& detail_key, List list, Load load) {
  router.add("GET", "/api/" + plural, [&ctx, list, list_key](const HttpRequest& r) {
    auto q = parse_definition_query(ctx, r);
    if (!q) return error_response(q.error());
    return json_response(200, json::object{{list_key, defs::to_json(list(q->roots))}});
  });
  router.add("GET", "/api/" + plural + "/:target", [&ctx, load, detail_key](const HttpRequest& r) {
    auto q = parse_definition_query(ctx, r);
    if (!q) return error_response(q.error());
    auto definition = load(q->roots, r.params.at("target"), q->cwd);
    if (!definition) return error_response(definition.error());
    return json_response(200, json::object{{detail_key, defs::to_detail_json(*definition)}});
  });
}

}  // namespace

void add_definition_routes(Router& router, ApiContext& ctx) {
  add_kind(router, ctx, "agents", "agents", "agent", &defs::list_agents, &defs::load_agent);
  add_kind(router, ctx, "assignments", "assignments", "assignment", &defs::list_assignments, &defs::load_assignment);
  add_kind(router, ctx, "launchers", "launchers", "launcher", &defs::list_launchers, &defs::load_launcher);
  add_kind(router, ctx, "task-definitions", "taskDefinitions", "taskDefinition", &defs::list_task_definitions,
           &defs::load_task_definition);
}

}  // namespace agentry::api
