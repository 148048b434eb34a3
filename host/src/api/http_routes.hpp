#pragma once
// Maps the HTTP API's routes onto operations.

#include "api/operations.hpp"
#include "api/router.hpp"

#include <optional>

namespace agentry::api {

/// Registers every operation's HTTP route. `ops` must outlive the router.
void add_operation_routes(Router& router, const Operations& ops);
/// The dependency routes (api/dependency_operations.cpp): their body is the dependency.
void add_dependency_routes(Router& router, const Operations& ops);
/// GET /metrics (api/metrics_route.cpp).
void add_metrics_route(Router& router);
/// GET /api/openapi.json: docs/openapi.yaml as JSON (api/openapi_route.cpp).
void add_openapi_route(Router& router);

/// An operation's answer over HTTP: its body with its status (or `status` when given),
/// the error envelope, or, for an answer that waits on a program (a taskTransition
/// hook), the part that waits, which the server runs on its blocking pool.
HttpResponse operation_response(core::Result<OperationResult> result, std::optional<int> status = std::nullopt);

/// The handler of one operation's route: path parameters and the JSON body (or, with
/// `from_query`, the query string) become its parameters. For route tables kept beside
/// their operations (api/schedule_operations.cpp).
Handler operation_handler(const Operations& ops, std::string name, bool from_query);

}  // namespace agentry::api
