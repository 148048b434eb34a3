#pragma once
// Maps the HTTP API's routes onto operations.

#include "api/operations.hpp"

namespace agentry::api {

class Router;

/// Registers every operation's HTTP route. `ops` must outlive the router.
void add_operation_routes(Router& router, const Operations& ops);
/// The dependency routes (api/dependency_operations.cpp): their body is the dependency.
void add_dependency_routes(Router& router, const Operations& ops);

}  // namespace agentry::api
