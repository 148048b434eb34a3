#pragma once
// Operations: every command and query of the API, by name ("runs.archive"), taking one
// JSON object of parameters and answering one JSON value. HTTP routes, WebSocket
// JSON-RPC methods and the embedded CLI all call these, so each behaves, and fails,
// the same way whichever transport carries it.

#include "api/api_context.hpp"
#include "api/json_body.hpp"
#include "core/result.hpp"
#include "engine/requests.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::api {

struct OperationRequest {
  boost::json::object params;  // path parameters, body fields and (HTTP GET) query values
  engine::Actor actor{"api"};
  engine::VarOrigin var_origin = engine::VarOrigin::web;
  /// Set when the caller holds a per-run token: the one run it may act on (api/run_scope.hpp).
  std::string scope_run_id{};
  /// An HTTP route, not a JSON-RPC method: the few operations whose HTTP form takes
  /// less than the method (runs.ready: promotion only, as in the reference) check it.
  bool over_http = false;
  /// The transport takes OperationResult::after_write (the HTTP routes): an operation
  /// whose answer waits on a commit may then leave no request worker waiting for it.
  bool answer_after_write = false;
};

struct OperationResult;
/// Makes an answer on the transport's own thread: what an operation does once its write
/// committed (change notifications, timers) and the answer's JSON.
using MakeAnswer = std::function<core::Result<OperationResult>()>;
/// Where such an answer goes. Called once, on the store's writer: it only hands the
/// maker on to the transport's thread.
using AnswerReply = std::function<void(MakeAnswer)>;

struct OperationResult {
  boost::json::value body;
  int http_status = 200;  // 201 for creations; other transports ignore it
  /// Set instead of a body when the answer waits on a program (a taskTransition hook):
  /// the transport calls it on its blocking pool, so no request worker waits on a child
  /// process, and answers with what it returns. finish() runs it in place.
  std::function<core::Result<OperationResult>()> blocking{};
  /// Set instead of a body, only when the request allowed it (answer_after_write), when
  /// the answer waits on a write: the transport calls it with where the answer goes, on
  /// the worker that ran the operation, which is then free. finish() waits in place.
  std::function<void(AnswerReply)> after_write{};
};

/// `result`, with its blocking part or its wait for a write (if any) done here: for
/// callers that may wait (the embedded CLI, an operation calling another).
core::Result<OperationResult> finish(core::Result<OperationResult> result);

using Operation = std::function<core::Result<OperationResult>(const OperationRequest&)>;

class Operations {
 public:
  void add(std::string name, Operation operation);
  const Operation* find(std::string_view name) const;
  std::vector<std::string> names() const;
  /// Runs `name`; an unknown name is NOT_FOUND, an exception INTERNAL (logged).
  core::Result<OperationResult> call(std::string_view name, const OperationRequest& request) const;

 private:
  std::map<std::string, Operation, std::less<>> operations_;
};

/// Every operation of the API.
Operations make_operations(ApiContext& context);

void add_run_operations(Operations& ops, ApiContext& context);
void add_task_operations(Operations& ops, ApiContext& context);
void add_definition_operations(Operations& ops, ApiContext& context);
/// environments.status, environments.cleanup: the containers of runs (container_operations.cpp).
void add_container_operations(Operations& ops, ApiContext& context);
void add_history_operations(Operations& ops, ApiContext& context);
/// usage.summary: tokens and cost per agent, day, group, run or session (usage_operations.cpp).
void add_usage_operations(Operations& ops, ApiContext& context);
void add_daemon_operations(Operations& ops, ApiContext& context);
void add_dependency_operations(Operations& ops, ApiContext& context);
/// runs.setSchedule, runs.clearSchedule, runs.enableSchedule, runs.disableSchedule.
void add_schedule_operations(Operations& ops, ApiContext& context);
void add_attachment_operations(Operations& ops, ApiContext& context);
/// projects.trustStatus, projects.trust, projects.revokeTrust, projects.listTrusted.
void add_project_operations(Operations& ops, ApiContext& context);
/// triggers.list: the inbound triggers of the config directory (trigger_routes.cpp).
void add_trigger_operations(Operations& ops, ApiContext& context);
/// workspace.files, workspace.search, workspace.file, workspace.diff, workspace.refs (workspace_operations.cpp).
void add_workspace_operations(Operations& ops, ApiContext& context);

// Helpers for operation bodies.

/// The params as a JsonBody, rejecting keys outside `allowed`.
core::Result<JsonBody> params_of(const OperationRequest& request, std::initializer_list<std::string_view> allowed);
/// A required run id parameter ("runId"), checked for shape.
core::Result<std::string> run_id_of(const JsonBody& params);
/// A query-style parameter as text: HTTP passes strings, JSON-RPC may pass numbers or
/// booleans; both mean the same.
core::Result<std::optional<std::string>> text_param(const JsonBody& params, std::string_view key);
/// {"run": RunDetail} read after a committed mutation.
core::Result<OperationResult> run_detail_result(engine::Engine& engine, const std::string& run_id,
                                                int http_status = 200);
/// The same answer for a view the caller already has (a run it just created).
OperationResult run_detail_result(const engine::RunView& view, int http_status = 200);

}  // namespace agentry::api
