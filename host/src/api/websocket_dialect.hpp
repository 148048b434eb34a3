#pragma once
// What a WebSocket connection speaks when it is not our own JSON-RPC: another wire's
// methods and streams on the same connection machinery (ws_connection.hpp). Kept apart
// from that file so that callers need no Beast.

#include "api/operations.hpp"
#include "api/run_streams.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace agentry::api {

/// Another wire's methods on the same WebSocket machinery (api/compat/): its method
/// registry, called its own way (its run-addressed methods name the run themselves), its
/// stream sources and its wording of errors. A connection without one speaks ours.
struct WebSocketDialect {
  const Operations* operations = nullptr;
  std::function<core::Result<OperationResult>(const Operations&, std::string_view method, const OperationRequest&)> call;
  std::function<core::Result<std::shared_ptr<EventStream>>(const StreamRequest&)> open;
  std::function<std::string(const boost::json::value& id, const core::Error&)> error;
};

}  // namespace agentry::api
