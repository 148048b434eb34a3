#pragma once
// The Model Context Protocol server, transport-neutral: one JSON-RPC message in, its
// answer out. The stdio transport (`agentry mcp`, cli/commands/mcp_command.cpp) and the
// streamable HTTP transport (POST /mcp, mcp_http.cpp) both hand messages to it.
//
// Methods: initialize (protocol version negotiation), ping, tools/list, tools/call,
// resources/list, resources/templates/list, resources/read; notifications are taken and
// not answered. Tools and resources reach the daemon only through `McpCaller`, which runs
// an API operation (api/operations.hpp), so an MCP client is validated and refused
// exactly as the HTTP API refuses its callers.
//
// Errors (JSON-RPC):
//   -32700 the message is not JSON          -32600 not a JSON-RPC 2.0 message
//   -32601 unknown method                   -32602 bad params: an unknown tool, arguments that
//   -32002 a resource that does not exist           break the tool's schema or that the
//   -32603 an unexpected failure                    operation refuses; data.field names it
// A tool that runs and fails (a run not found, a lifecycle conflict) answers a result
// with isError: true and the API's error text, as the specification asks, so the model
// reads why.

#include "api/jsonrpc.hpp"
#include "api/operations.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace agentry::api::mcp {

inline constexpr int mcp_resource_not_found = -32002;

/// Newest first; initialize answers the client's version when it is listed, else the first.
const std::vector<std::string>& supported_protocol_versions();
bool is_supported_protocol_version(std::string_view version);

/// Runs one API operation for a tool or a resource. The transport decides who the caller
/// is (actor, per-run token scope) and how a blocking part is run (OperationResult::blocking).
using McpCaller = std::function<core::Result<OperationResult>(const std::string& operation, boost::json::object params)>;

/// What one client has negotiated. One per stdio process; one per Mcp-Session-Id over HTTP.
struct McpSession {
  std::string protocol_version;  // empty until initialize
  bool initialized = false;      // notifications/initialized received
  std::string client_name;       // clientInfo.name, for logs
};

/// One parsed JSON-RPC message.
struct McpMessage {
  std::optional<boost::json::value> id;  // absent: a notification
  std::string method;                    // empty for a response to a request of ours
  boost::json::object params;
  bool is_response() const { return method.empty(); }
  bool is_request() const { return id.has_value() && !method.empty(); }
};

/// The message, or the JSON-RPC error text to answer instead.
std::variant<McpMessage, std::string> parse_mcp_message(std::string_view text);

/// The answer to one message.
struct McpReply {
  /// The JSON-RPC response to send; nullopt for a notification or a client's response.
  std::optional<std::string> text;
  /// Set instead of `text` when the answer waits on a program (a tool whose operation
  /// returned OperationResult::blocking): the transport calls it where waiting is allowed.
  std::function<std::string()> later{};
};

struct McpServerInfo {
  std::string name = "agentry";
  std::string version;
};

class McpServer {
 public:
  McpServer(McpCaller caller, McpServerInfo info);
  McpReply handle(const McpMessage& message, McpSession& session) const;
  /// parse_mcp_message, then handle().
  McpReply handle_text(std::string_view text, McpSession& session) const;

 private:
  McpReply call_tool(const boost::json::value& id, const boost::json::object& params, const McpSession& session) const;
  McpReply read_resource(const boost::json::value& id, const boost::json::object& params) const;
  McpReply list_resources(const boost::json::value& id, const boost::json::object& params) const;

  McpCaller caller_;
  McpServerInfo info_;
};

std::string mcp_result(const boost::json::value& id, const boost::json::value& result);
std::string mcp_error(const boost::json::value& id, int code, const std::string& message,
                      boost::json::object data = {});

}  // namespace agentry::api::mcp
