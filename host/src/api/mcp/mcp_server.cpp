#include "api/mcp/mcp_server.hpp"

#include "api/json_body.hpp"
#include "api/mcp/mcp_resources.hpp"
#include "api/mcp/mcp_schema.hpp"
#include "api/mcp/mcp_tools.hpp"
#include "core/log.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentry::api::mcp {
namespace json = boost::json;

namespace {

constexpr const char* instructions =
    "agentry runs AI agents as durable runs. Start one with start_run (an agent defined in the daemon's config), "
    "follow it with show_run or read_timeline, steer it with queue_message, answer_approval, set_task, "
    "resume_run or abort_run. Runs go on in the daemon after a call returns.";

/// The newest page of runs resources/list names.
constexpr int resources_page = 50;

bool structured_output(const McpSession& session) { return session.protocol_version >= "2025-06-18"; }

/// The field an API error names (details.field, or details.parameter for query-style ones).
std::optional<std::string> field_of(const core::Error& error) {
  for (const char* key : {"field", "parameter"})
    if (const auto* v = error.details.if_contains(key); v && v->is_string()) return std::string(v->as_string());
  return std::nullopt;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string internal_error_text(const std::string& what, const core::Error& error) {
  // The message may carry an exception's text: logged here, kept from the client (as HTTP does).
  core::log_error("mcp: " + what + " failed", {{"error", error.message}});
  return "agentry could not complete " + what + " (an internal error; the daemon's log says more)";
}

/// The answer to a tools/call whose operation has answered.
std::string tool_answer(const json::value& id, const McpTool& tool, const core::Result<OperationResult>& result,
                        bool structured) {
  if (!result) {
    const core::Error& error = result.error();
    if (error.code == core::ErrorCode::invalid_request) {
      if (auto field = field_of(error)) {
        // Bad arguments: a protocol error naming the field, under the tool's name for it.
        const std::string name = tool_field(tool, *field);
        return mcp_error(id, jsonrpc_invalid_params, replace_all(error.message, "'" + *field + "'", "'" + name + "'"),
                         {{"field", name}, {"code", core::error_code_name(error.code)}, {"details", error.details}});
      }
    }
    // The API's names for renamed arguments read as the tool's ("give ... overrides.message").
    std::string message = error.message;
    for (const auto& [argument, target] : tool.renames) message = replace_all(std::move(message), target, argument);
    std::string text = error.code == core::ErrorCode::internal
                           ? internal_error_text("tool " + tool.name, error)
                           : std::string(core::error_code_name(error.code)) + ": " + message;
    if (error.code != core::ErrorCode::internal && !error.details.empty()) text += "\n" + json::serialize(error.details);
    json::object answer{{"content", json::array{json::object{{"type", "text"}, {"text", text}}}}, {"isError", true}};
    if (structured && error.code != core::ErrorCode::internal)
      answer["structuredContent"] = json::object{
          {"error", {{"code", core::error_code_name(error.code)}, {"message", message}, {"details", error.details}}}};
    return mcp_result(id, answer);
  }
  const json::value& body = result->body;
  json::object answer{{"content", json::array{json::object{{"type", "text"}, {"text", json::serialize(body)}}}},
                      {"isError", false}};
  if (structured && body.is_object()) answer["structuredContent"] = body;
  return mcp_result(id, answer);
}

json::object initialize_result(const std::string& version, const McpServerInfo& info) {
  return {{"protocolVersion", version},
          {"capabilities", {{"tools", {{"listChanged", false}}}, {"resources", {{"subscribe", false}, {"listChanged", false}}}}},
          {"serverInfo", {{"name", info.name}, {"title", "agentry"}, {"version", info.version}}},
          {"instructions", instructions}};
}

}  // namespace

const std::vector<std::string>& supported_protocol_versions() {
  static const std::vector<std::string> versions{"2025-06-18", "2025-03-26", "2024-11-05"};
  return versions;
}

bool is_supported_protocol_version(std::string_view version) {
  for (const auto& v : supported_protocol_versions())
    if (v == version) return true;
  return false;
}

std::string mcp_result(const json::value& id, const json::value& result) {
  return json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
}

std::string mcp_error(const json::value& id, int code, const std::string& message, json::object data) {
  json::object error{{"code", code}, {"message", message}};
  if (!data.empty()) error["data"] = std::move(data);
  return json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}});
}

std::variant<McpMessage, std::string> parse_mcp_message(std::string_view text) {
  boost::system::error_code ec;
  auto value = json::parse(text, ec);
  if (ec) return mcp_error(nullptr, jsonrpc_parse_error, "parse error: " + ec.message());
  if (value.is_array())
    return mcp_error(nullptr, jsonrpc_invalid_request, "batches are not supported; send one message at a time");
  if (!value.is_object()) return mcp_error(nullptr, jsonrpc_invalid_request, "a message must be a JSON object");
  const auto& o = value.as_object();
  McpMessage message;
  json::value id = nullptr;
  if (const auto* v = o.if_contains("id")) {
    if (!v->is_string() && !v->is_int64() && !v->is_uint64())
      return mcp_error(nullptr, jsonrpc_invalid_request, "id must be a string or an integer");
    id = *v;
    message.id = *v;
  }
  const auto* version = o.if_contains("jsonrpc");
  if (!version || !version->is_string() || version->as_string() != "2.0")
    return mcp_error(id, jsonrpc_invalid_request, "jsonrpc must be \"2.0\"");
  if (const auto* method = o.if_contains("method")) {
    if (!method->is_string() || method->as_string().empty())
      return mcp_error(id, jsonrpc_invalid_request, "method must be a non-empty string");
    message.method = std::string(method->as_string());
  } else if (!message.id || !(o.contains("result") || o.contains("error"))) {
    return mcp_error(id, jsonrpc_invalid_request, "a message needs a method (a request or notification), or an id "
                                              "with a result or an error (a response)");
  }
  if (const auto* params = o.if_contains("params")) {
    if (!params->is_object())
      return mcp_error(id, jsonrpc_invalid_params, "params must be an object", {{"field", "params"}});
    if (auto problem = first_unstorable(*params)) {
      const auto error = unstorable_error(*problem);
      return mcp_error(id, jsonrpc_invalid_params, error.message, {{"field", problem->field}});
    }
    message.params = params->as_object();
  }
  return message;
}

McpServer::McpServer(McpCaller caller, McpServerInfo info) : caller_(std::move(caller)), info_(std::move(info)) {}

McpReply McpServer::handle_text(std::string_view text, McpSession& session) const {
  auto parsed = parse_mcp_message(text);
  if (auto* error = std::get_if<std::string>(&parsed)) return McpReply{std::move(*error)};
  return handle(std::get<McpMessage>(parsed), session);
}

McpReply McpServer::handle(const McpMessage& message, McpSession& session) const {
  if (message.is_response()) return {};  // we send no requests: nothing waits for it
  if (!message.id) {
    if (message.method == "notifications/initialized") session.initialized = true;
    return {};  // notifications/cancelled and the rest: nothing to undo or answer
  }
  const json::value& id = *message.id;
  const auto& params = message.params;
  try {
    if (message.method == "initialize") {
      const auto* requested = params.if_contains("protocolVersion");
      if (!requested || !requested->is_string())
        return {mcp_error(id, jsonrpc_invalid_params, "field 'protocolVersion' is required: the client's newest version",
                          {{"field", "protocolVersion"}, {"supported", json::value_from(supported_protocol_versions())}})};
      const std::string asked(requested->as_string());
      session.protocol_version = is_supported_protocol_version(asked) ? asked : supported_protocol_versions().front();
      if (const auto* client = params.if_contains("clientInfo"); client && client->is_object())
        if (const auto* name = client->as_object().if_contains("name"); name && name->is_string())
          session.client_name = std::string(name->as_string());
      return {mcp_result(id, initialize_result(session.protocol_version, info_))};
    }
    if (message.method == "ping") return {mcp_result(id, json::object{})};
    if (message.method == "tools/list") {
      json::array tools;
      for (const auto& tool : mcp_tools()) tools.push_back(tool_listing(tool));
      return {mcp_result(id, json::object{{"tools", std::move(tools)}})};
    }
    if (message.method == "tools/call") return call_tool(id, params, session);
    if (message.method == "resources/templates/list")
      return {mcp_result(id, json::object{{"resourceTemplates", resource_templates()}})};
    if (message.method == "resources/list") return list_resources(id, params);
    if (message.method == "resources/read") return read_resource(id, params);
    return {mcp_error(id, jsonrpc_method_not_found, "unknown method '" + message.method + "'",
                      {{"method", message.method}})};
  } catch (const std::exception& e) {
    core::log_error("mcp: " + message.method + " failed", {{"error", e.what()}});
    return {mcp_error(id, jsonrpc_internal_error, "agentry could not complete " + message.method +
                                                  " (an internal error; the daemon's log says more)")};
  }
}

McpReply McpServer::call_tool(const json::value& id, const json::object& params, const McpSession& session) const {
  const auto* name = params.if_contains("name");
  if (!name || !name->is_string())
    return {mcp_error(id, jsonrpc_invalid_params, "field 'name' is required: the tool to call", {{"field", "name"}})};
  const McpTool* tool = find_mcp_tool(name->as_string());
  if (!tool) {
    std::string known;
    for (const auto& t : mcp_tools()) known += (known.empty() ? "" : ", ") + t.name;
    return {mcp_error(id, jsonrpc_invalid_params,
                      "unknown tool '" + std::string(name->as_string()) + "'; agentry's tools are " + known,
                      {{"field", "name"}, {"tool", *name}})};
  }
  json::object arguments;
  if (const auto* given = params.if_contains("arguments"); given && !given->is_null()) {
    if (!given->is_object())
      return {mcp_error(id, jsonrpc_invalid_params, "field 'arguments' must be an object", {{"field", "arguments"}})};
    arguments = given->as_object();
  }
  if (auto problem = check_against_schema(arguments, tool->input_schema))
    return {mcp_error(id, jsonrpc_invalid_params, "tool " + tool->name + ": " + problem->message,
                      {{"field", problem->field}, {"tool", tool->name}})};
  auto operation_arguments = operation_params(*tool, arguments);
  if (!operation_arguments)
    return {tool_answer(id, *tool, operation_arguments.failure(), false)};
  const bool structured = structured_output(session);
  auto result = caller_(tool->operation, std::move(*operation_arguments));
  if (result && result->blocking) {
    // The answer waits on a program (a taskTransition hook): the transport runs it off
    // its request workers.
    return McpReply{std::nullopt, [id, tool, structured, blocking = std::move(result->blocking)] {
                      return tool_answer(id, *tool, finish(blocking()), structured);
                    }};
  }
  return {tool_answer(id, *tool, result, structured)};
}

McpReply McpServer::list_resources(const json::value& id, const json::object& params) const {
  json::object query{{"limit", resources_page}};
  if (const auto* cursor = params.if_contains("cursor"); cursor && !cursor->is_null()) {
    if (!cursor->is_string())
      return {mcp_error(id, jsonrpc_invalid_params, "field 'cursor' must be a string", {{"field", "cursor"}})};
    query["cursor"] = *cursor;
  }
  auto page = finish(caller_("runs.list", std::move(query)));
  if (!page) {
    if (page.error().code == core::ErrorCode::invalid_request)
      return {mcp_error(id, jsonrpc_invalid_params, page.error().message, {{"field", "cursor"}})};
    return {mcp_error(id, jsonrpc_internal_error, internal_error_text("resources/list", page.error()))};
  }
  json::array resources;
  for (const auto& run : page->body.at("runs").as_array()) {
    const auto& summary = run.as_object();
    const std::string run_id(summary.at("runId").as_string());
    json::object resource{{"uri", run_resource_uri(run_id)}, {"name", run_id}, {"mimeType", "application/json"}};
    std::string title;
    for (const char* key : {"name", "agent"})
      if (const auto* v = summary.if_contains(key); title.empty() && v && v->is_string()) title = v->as_string();
    if (!title.empty()) resource["title"] = title;
    if (const auto* status = summary.if_contains("status"); status && status->is_string())
      resource["description"] = "run " + run_id + ": " + std::string(status->as_string());
    resources.push_back(std::move(resource));
  }
  json::object result{{"resources", std::move(resources)}};
  if (const auto* next = page->body.as_object().if_contains("nextCursor"); next && next->is_string())
    result["nextCursor"] = *next;
  return {mcp_result(id, result)};
}

McpReply McpServer::read_resource(const json::value& id, const json::object& params) const {
  const auto* uri = params.if_contains("uri");
  if (!uri || !uri->is_string())
    return {mcp_error(id, jsonrpc_invalid_params, "field 'uri' is required: the resource to read", {{"field", "uri"}})};
  auto target = resource_target(uri->as_string());
  if (!target) return {mcp_error(id, jsonrpc_invalid_params, target.error().message, {{"field", "uri"}})};
  auto body = finish(caller_(target->operation, std::move(target->params)));
  if (!body) {
    const core::Error& error = body.error();
    if (error.code == core::ErrorCode::not_found)
      return {mcp_error(id, mcp_resource_not_found, error.message, {{"uri", *uri}})};
    if (error.code == core::ErrorCode::internal)
      return {mcp_error(id, jsonrpc_internal_error, internal_error_text("resources/read", error))};
    return {mcp_error(id, jsonrpc_invalid_params, error.message,
                      {{"field", "uri"}, {"code", core::error_code_name(error.code)}, {"details", error.details}})};
  }
  return {mcp_result(id, json::object{{"contents", json::array{json::object{{"uri", *uri},
                                                                          {"mimeType", "application/json"},
                                                                          {"text", json::serialize(body->body)}}}}})};
}

}  // namespace agentry::api::mcp
