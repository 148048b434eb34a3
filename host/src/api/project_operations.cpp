// Operations on project trust (engine/project_trust.hpp): whether a project's
// `.agentry/` definitions are trusted, trusting them as they are now, and revoking it.
// A per-run token reaches none of these (api/run_scope.cpp): an agent must never be
// able to trust the repository it works in.

#include "api/operations.hpp"

namespace agentry::api {
namespace json = boost::json;
namespace fs = std::filesystem;
using core::Result;

namespace {

Result<fs::path> dir_param(const OperationRequest& r) {
  auto params = params_of(r, {"dir"});
  if (!params) return params.failure();
  auto dir = params->required_string("dir");
  if (!dir) return dir.failure();
  if (dir->empty() || (*dir)[0] != '/')
    return core::fail(core::ErrorCode::invalid_request, "dir must be an absolute path", {{"field", "dir"}});
  return fs::path(*dir);
}

Result<OperationResult> project_result(Result<engine::ProjectTrustStatus> status) {
  if (!status) return status.failure();
  return OperationResult{json::object{{"project", to_json(*status)}}};
}

}  // namespace

void add_project_operations(Operations& ops, ApiContext& ctx) {
  ops.add("projects.trustStatus", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    auto dir = dir_param(r);
    if (!dir) return dir.failure();
    return project_result(ctx.engine.projects().status(*dir));
  });
  ops.add("projects.trust", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    auto dir = dir_param(r);
    if (!dir) return dir.failure();
    return project_result(ctx.engine.projects().trust(*dir, r.actor.name));
  });
  ops.add("projects.revokeTrust", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    auto dir = dir_param(r);
    if (!dir) return dir.failure();
    return project_result(ctx.engine.projects().revoke(*dir, r.actor.name));
  });
  ops.add("projects.listTrusted", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    if (auto params = params_of(r, {}); !params) return params.failure();
    auto list = ctx.engine.projects().list();
    if (!list) return list.failure();
    json::array projects;
    for (const auto& p : *list) projects.push_back(to_json(p));
    return OperationResult{json::object{{"projects", std::move(projects)}}};
  });
}

}  // namespace agentry::api
