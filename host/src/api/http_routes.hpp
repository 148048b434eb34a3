#pragma once
// Maps the HTTP API's routes onto operations.

#include "api/operations.hpp"
#include "api/router.hpp"

namespace agentry::api {

/// Registers every operation's HTTP route. `ops` must outlive the router.
void add_operation_routes(Router& router, const Operations& ops);
/// The dependency routes (api/dependency_operations.cpp): their body is the dependency.
void add_dependency_routes(Router& router, const Operations& ops);

/// The handler of one operation's route: path parameters and the JSON body (or, with
/// `from_query`, the query string) become its parameters. For route tables kept beside
/// their operations (api/schedule_operations.cpp).
Handler operation_handler(const Operations& ops, std::string name, bool from_query);

}  // namespace agentry::api
