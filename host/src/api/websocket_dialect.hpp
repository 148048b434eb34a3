#pragma once
// What a WebSocket connection speaks when it is not our own JSON-RPC: another wire's
// methods and streams on the same connection machinery (ws_connection.hpp). Kept apart
// from that file so that callers need no Beast.

#include "api/operations.hpp"
#include "api/run_streams.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
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
  /// Byte streams (attachments.upload.open/.finish, attachments.download) stay ours on
  /// the wire; their parameters and results are reworded by these (either may be empty).
  std::function<void(std::string_view method, boost::json::object& params)> stream_params;
  std::function<void(std::string_view method, boost::json::object& result)> stream_result;
  /// ByteStreamLimits::first_data_delay for this dialect's downloads.
  std::chrono::milliseconds download_data_delay{0};
};

}  // namespace agentry::api
