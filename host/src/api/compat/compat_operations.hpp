#pragma once
// agent-runner's methods, by its names (runs.get, runs.list, tasks.set, ...), each built
// on our own operations: it calls them with the caller's identity (and its per-run
// token, which they check as always) and translates their answers (compat_dto.hpp).
// The HTTP routes of the compat listener and, later, its WebSocket both call these.

#include "api/compat/compat_context.hpp"
#include "api/compat/compat_facts.hpp"
#include "api/operations.hpp"

#include <boost/json/object.hpp>

#include <string_view>
#include <vector>

namespace agentry::api::compat {

/// Every method of the compat listener. `context` must outlive the registry.
Operations make_compat_operations(CompatContext& context);
/// Reads: daemon.info, runs.list, runs.get, runs.brief, runs.auditHistory, tasks.list,
/// tasks.get, the definitions, workspace.* (compat_read_operations.cpp).
void add_compat_read_operations(Operations& ops, CompatContext& context);
/// Mutations: archive, names, notes, pins, sessions, groups, dependencies, schedules,
/// queued messages, tasks, reset, reconfigure, abort, delete (compat_mutation_operations.cpp).
void add_compat_mutation_operations(Operations& ops, CompatContext& context);
/// attachments.list, attachments.remove (compat_attachments.cpp).
void add_compat_attachment_operations(Operations& ops, CompatContext& context);
/// The byte streams' parameters and results in their words (WebSocketDialect).
void reword_stream_params(std::string_view method, boost::json::object& params);
void reword_stream_result(std::string_view method, boost::json::object& result);
/// runs.init, runs.start, runs.resume (compat_start_operations.cpp).
void add_compat_start_operations(Operations& ops, CompatContext& context);

/// Runs compat method `name` for `request`. Unlike Operations::call it does not check a
/// per-run token against the name (our allow-list knows our names): the native calls
/// each method makes are checked instead.
core::Result<OperationResult> call_compat(const Operations& ops, std::string_view name, const OperationRequest& request);

// For the methods' bodies.

/// What the DTOs need of this daemon, now.
CompatFacts facts_of(const CompatContext& context);
/// Our operation `name` with `params`, as the caller of `request` (actor, token); its
/// blocking part, if any, finished here. The answer's JSON object.
core::Result<boost::json::object> call_native(const CompatContext& context, std::string_view name,
                                              const OperationRequest& request, boost::json::object params);
/// INVALID_REQUEST naming the first parameter that is neither `target` nor in `keys`.
core::Result<void> only_keys(const OperationRequest& request, const std::vector<std::string_view>& keys);
/// Their run-addressed methods name the run `target`; ours take `runId`.
core::Result<std::string> target_of(const OperationRequest& request);

}  // namespace agentry::api::compat
