#pragma once
// What a per-run token (engine/live/run_tokens.hpp) may do: its own run's tasks and queued
// messages, read its own run, and start child runs under it. Everything else, another
// run's routes included, is FORBIDDEN. One check for every transport: HTTP routes and
// WebSocket methods call the same operations (api/operations.hpp); event streams are
// checked by run id.

#include "core/result.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace agentry::api {

/// OK when a caller limited to `scope_run_id` may call `operation` with `params`. Child
/// runs (runs.init, runs.start) are let through only under `scope_run_id`, which is
/// filled in as their parentRunId when the caller gave none.
core::Result<void> check_run_scope(std::string_view operation, boost::json::object& params,
                                   const std::string& scope_run_id);

/// The same for an event stream of `run_id` (empty: the all-runs summary stream).
core::Result<void> check_stream_scope(const std::string& run_id, const std::string& scope_run_id);

}  // namespace agentry::api
