// JSON-RPC 2.0 over newline-delimited JSON (the framing of the Agent Client Protocol, the
// Codex app-server's stdio and pi's RPC mode): requests with their answers matched by id,
// notifications, and requests from the other side answered later. No I/O here: lines come
// in through receive() and go out through the `send` function, so one peer serves a pipe,
// a socket or a test alike. Not thread-safe: use it from one executor.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

namespace agentry::plugin_common::runtime {

struct RpcError {
  int64_t code = 0;
  std::string message;
  boost::json::value data;

  static constexpr int64_t kParseError = -32700;
  static constexpr int64_t kInvalidRequest = -32600;
  static constexpr int64_t kMethodNotFound = -32601;
  static constexpr int64_t kInvalidParams = -32602;
  static constexpr int64_t kInternalError = -32603;
  // Our own: the peer went away before it answered.
  static constexpr int64_t kPeerGone = -32099;
};

class JsonRpcPeer {
 public:
  // Exactly one of `result` and `error` is set.
  using ResultHandler = std::function<void(const boost::json::value* result, const RpcError* error)>;
  // A request from the other side: answer it (now or later) with respond()/respond_error().
  using RequestHandler = std::function<void(const boost::json::value& id, std::string_view method,
                                            const boost::json::value& params)>;
  using NotificationHandler = std::function<void(std::string_view method, const boost::json::value& params)>;
  // A line that is not a JSON-RPC message (an agent that prints to stdout), and why.
  using NoiseHandler = std::function<void(std::string_view line, std::string_view why)>;

  // `send` gets one serialized message followed by '\n'.
  explicit JsonRpcPeer(std::function<void(std::string)> send) : send_(std::move(send)) {}

  void on_request(RequestHandler handler) { on_request_ = std::move(handler); }
  void on_notification(NotificationHandler handler) { on_notification_ = std::move(handler); }
  void on_noise(NoiseHandler handler) { on_noise_ = std::move(handler); }

  // Sends a request; `done` runs when its answer arrives (or fail_pending()). Returns its id.
  int64_t request(std::string_view method, boost::json::value params, ResultHandler done);
  void notify(std::string_view method, boost::json::value params);
  void respond(const boost::json::value& id, boost::json::value result);
  void respond_error(const boost::json::value& id, int64_t code, std::string_view message);

  // Handles one received line (without its '\n'; an empty line is ignored).
  void receive(std::string_view line);

  // Answers every request still waiting with `error` (the peer is gone).
  void fail_pending(const RpcError& error);
  std::size_t pending() const noexcept { return waiting_.size(); }

 private:
  void send(const boost::json::value& message);

  std::function<void(std::string)> send_;
  RequestHandler on_request_;
  NotificationHandler on_notification_;
  NoiseHandler on_noise_;
  int64_t next_id_ = 1;
  std::map<int64_t, ResultHandler> waiting_;
};

}  // namespace agentry::plugin_common::runtime
