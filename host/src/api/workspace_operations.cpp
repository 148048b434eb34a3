// The run's workspace: files (list, search, preview), diffs, refs, and the raw download route.
// All resolve inside the run's cwd (workspace/confinement.hpp). The transports run these
// on a pool of their own (is_slow_path, is_slow_method), and searches, diffs and raw reads
// go to the workspace's slow lane with a deadline.

#include "api/api_context.hpp"
#include "api/operations.hpp"
#include "api/route_support.hpp"
#include "api/router.hpp"
#include "api/run_scope.hpp"
#include "api/slow_work.hpp"
#include "workspace/diff.hpp"
#include "workspace/refs.hpp"
#include "workspace/files.hpp"
#include "workspace/slow_lane.hpp"

#include <cctype>
#include <cstdlib>

namespace agentry::api {
namespace json = boost::json;
using core::Result;

namespace {

/// Shared by every workspace operation of the process.
struct WorkspaceServices {
  workspace::Limits limits;
  /// Two jobs at a time and none queued: a third concurrent request gets 503 at once.
  /// The daemon calls these operations from its slow pool (is_slow_path), so what waits
  /// here is never a request worker.
  workspace::SlowLane lane{2, 0};
  /// How long a caller waits for slow work: the work's own deadline plus a margin for
  /// answering what it has.
  std::chrono::milliseconds wait() const { return limits.deadline + std::chrono::seconds(5); }
};

WorkspaceServices& services() {
  static WorkspaceServices instance;
  return instance;
}

Result<std::string> cwd_of(engine::Engine& engine, const std::string& run_id) {
  auto view = engine.view(run_id);
  if (!view) return view.failure();
  return view->run.cwd;
}

Result<workspace::Root> root_of(engine::Engine& engine, const std::string& run_id) {
  auto cwd = cwd_of(engine, run_id);
  if (!cwd) return cwd.failure();
  return workspace::Root::open(*cwd);
}

Result<std::string> path_param(const JsonBody& params, bool required) {
  auto text = params.optional_string("path");
  if (!text) return text.failure();
  if (!*text) {
    if (required)
      return core::fail(core::ErrorCode::invalid_request, "'path' is required: a path relative to the run's cwd",
                        {{"field", "path"}});
    return std::string();
  }
  return **text;
}

Result<std::size_t> limit_param(const JsonBody& params, std::size_t max) {
  auto text = text_param(params, "limit");
  if (!text) return text.failure();
  if (!*text) return std::size_t{0};
  char* end = nullptr;
  const long long n = std::strtoll((*text)->c_str(), &end, 10);
  if ((*text)->empty() || *end != '\0' || n < 1 || n > static_cast<long long>(max))
    return core::fail(core::ErrorCode::invalid_request, "limit must be an integer from 1 to " + std::to_string(max),
                      {{"parameter", "limit"}});
  return static_cast<std::size_t>(n);
}

Result<bool> flag_param(const JsonBody& params, const char* key) {
  auto text = text_param(params, key);
  if (!text) return text.failure();
  if (!*text) return false;
  if (**text == "true" || **text == "1") return true;
  if (**text == "false" || **text == "0") return false;
  return core::fail(core::ErrorCode::invalid_request, std::string(key) + " must be true or false",
                    {{"parameter", key}});
}

Result<workspace::DiffRequest> diff_request_of(const JsonBody& params, const std::string& run_id) {
  workspace::DiffRequest request;
  request.run_id = run_id;
  auto mode = params.optional_string("mode");
  if (!mode) return mode.failure();
  const std::string m = mode->value_or("working-tree");
  auto base = params.optional_string("base");
  if (!base) return base.failure();
  auto head = params.optional_string("head");
  if (!head) return head.failure();
  auto comparison = params.optional_string("comparison");
  if (!comparison) return comparison.failure();
  auto stat = flag_param(params, "stat");
  if (!stat) return stat.failure();
  request.with_patch = !*stat;
  if (m == "branch") {
    request.mode = workspace::DiffMode::branch;
    if (!*base || (*base)->empty())
      return core::fail(core::ErrorCode::invalid_request, "mode=branch needs 'base', the ref to compare against",
                        {{"field", "base"}});
    request.base = **base;
    request.head = head->value_or("HEAD");
    const std::string c = comparison->value_or("merge-base");
    if (c != "merge-base" && c != "direct")
      return core::fail(core::ErrorCode::invalid_request, "comparison must be merge-base or direct",
                        {{"field", "comparison"}});
    request.merge_base = c == "merge-base";
    return request;
  }
  if (*base || *head || *comparison)
    return core::fail(core::ErrorCode::invalid_request, "base, head and comparison belong to mode=branch",
                      {{"field", *base ? "base" : *head ? "head" : "comparison"}});
  if (m == "working-tree") request.mode = workspace::DiffMode::working_tree;
  else if (m == "run") request.mode = workspace::DiffMode::run;
  else
    return core::fail(core::ErrorCode::invalid_request, "mode must be working-tree, branch or run",
                      {{"field", "mode"}});
  return request;
}

/// What the request workers wait on: the job on the slow lane.
template <class T>
Result<T> on_lane(std::function<Result<T>()> job) {
  auto& s = services();
  return s.lane.run<T>(std::move(job), s.wait());
}

std::string content_disposition(const std::string& name) {
  // An ASCII fallback plus the exact UTF-8 name (RFC 6266 / 5987).
  std::string ascii, encoded;
  static const char* hex = "0123456789ABCDEF";
  for (unsigned char c : name) {
    ascii += (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') ? static_cast<char>(c) : '_';
    if (std::isalnum(c) || c == '.' || c == '-' || c == '_') encoded += static_cast<char>(c);
    else {
      encoded += '%';
      encoded += hex[c >> 4];
      encoded += hex[c & 15];
    }
  }
  return "attachment; filename=\"" + ascii + "\"; filename*=UTF-8''" + encoded;
}

}  // namespace


void add_workspace_operations(Operations& ops, ApiContext& ctx) {
  auto& engine = ctx.engine;
  ops.add("workspace.files", [&engine](const OperationRequest& r) -> Result<OperationResult> {
    auto params = params_of(r, {"runId", "path"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    auto path = path_param(*params, false);
    if (!path) return path.failure();
    auto root = root_of(engine, *id);
    if (!root) return root.failure();
    auto listing = workspace::list_directory(*root, *path, services().limits);
    if (!listing) return listing.failure();
    auto body = workspace::to_json(*listing);
    body["runId"] = *id;
    body["cwd"] = root->path().string();
    return OperationResult{std::move(body)};
  });
  ops.add("workspace.search", [&engine](const OperationRequest& r) -> Result<OperationResult> {
    auto params = params_of(r, {"runId", "q", "limit"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    auto q = params->required_string("q");
    if (!q) return q.failure();
    auto limit = limit_param(*params, services().limits.max_search_results);
    if (!limit) return limit.failure();
    auto root = root_of(engine, *id);
    if (!root) return root.failure();
    auto found = on_lane<workspace::SearchResult>(
        [root = *root, q = *q, limit = *limit] { return workspace::search_paths(root, q, limit, services().limits); });
    if (!found) return found.failure();
    auto body = workspace::to_json(*found);
    body["runId"] = *id;
    return OperationResult{std::move(body)};
  });
  ops.add("workspace.file", [&engine](const OperationRequest& r) -> Result<OperationResult> {
    auto params = params_of(r, {"runId", "path"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    auto path = path_param(*params, true);
    if (!path) return path.failure();
    auto root = root_of(engine, *id);
    if (!root) return root.failure();
    auto preview = workspace::preview_file(*root, *path, services().limits);
    if (!preview) return preview.failure();
    auto body = workspace::to_json(*preview);
    body["runId"] = *id;
    return OperationResult{std::move(body)};
  });
  ops.add("workspace.diff", [&engine](const OperationRequest& r) -> Result<OperationResult> {
    auto params = params_of(r, {"runId", "mode", "base", "head", "comparison", "stat"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    auto request = diff_request_of(*params, *id);
    if (!request) return request.failure();
    auto cwd = cwd_of(engine, *id);
    if (!cwd) return cwd.failure();
    auto diff = on_lane<workspace::DiffResult>([cwd = *cwd, request = *request] {
      return workspace::diff_workspace(cwd, request, services().limits);
    });
    if (!diff) return diff.failure();
    auto body = workspace::to_json(*diff);
    body["runId"] = *id;
    return OperationResult{std::move(body)};
  });
  ops.add("workspace.refs", [&engine](const OperationRequest& r) -> Result<OperationResult> {
    auto params = params_of(r, {"runId"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    auto cwd = cwd_of(engine, *id);
    if (!cwd) return cwd.failure();
    auto refs = on_lane<workspace::RefList>([cwd = *cwd] { return workspace::list_refs(cwd); });
    if (!refs) return refs.failure();
    auto body = workspace::to_json(*refs);
    body["runId"] = *id;
    return OperationResult{std::move(body)};
  });
}

void add_workspace_routes(Router& router, ApiContext& ctx) {
  auto& engine = ctx.engine;
  router.add("GET", "/api/runs/:runId/workspace/raw", [&engine](const HttpRequest& request) -> HttpResponse {
    auto id = run_id_param(request);
    if (!id) return error_response(id.error());
    json::object scope_params{{"runId", *id}};
    if (auto allowed = check_run_scope("workspace.raw", scope_params, request.scope_run_id); !allowed)
      return error_response(allowed.error());
    if (auto ok = allow_query(request, {"path"}); !ok) return error_response(ok.error());
    const auto* path = request.query_param("path");
    if (!path)
      return error_response(core::ErrorCode::invalid_request, "'path' is required: a path relative to the run's cwd",
                            {{"field", "path"}});
    auto root = root_of(engine, *id);
    if (!root) return error_response(root.error());
    auto raw = on_lane<workspace::RawDownload>(
        [root = *root, path = *path] { return workspace::locate_raw(root, path); });
    if (!raw) return error_response(raw.error());
    // Streamed from disk by the server, as attachment downloads are: no copy in memory.
    // The server opens the path the checks resolved and opened (no symlink left in it);
    // only a process that can already write the run's cwd could swap it in between.
    HttpResponse response;
    response.status = 200;
    response.content_type = "application/octet-stream";
    response.file = raw->absolute;
    response.headers.emplace_back("Content-Disposition", content_disposition(raw->name));
    response.headers.emplace_back("Cache-Control", "no-store");
    return response;
  });
}

}  // namespace agentry::api
