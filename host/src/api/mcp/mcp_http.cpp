#include "api/mcp/mcp_http.hpp"

#include "api/mcp/mcp_server.hpp"
#include "api/mcp/mcp_tools.hpp"
#include "api/slow_work.hpp"

#include <boost/json/parse.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <random>

namespace agentry::api::mcp {
namespace json = boost::json;

namespace {

/// More sessions than any set of clients keeps open; past it the least recently used
/// one ends (its client gets 404 and initializes again).
constexpr std::size_t max_sessions = 1024;

struct SessionEntry {
  McpSession session;
  std::string scope;  // the run a per-run token limits it to; "" for the daemon's token or no auth
  std::chrono::steady_clock::time_point used;
};

class Sessions {
 public:
  std::string open(McpSession session, std::string scope) {
    std::lock_guard lock(mutex_);
    if (sessions_.size() >= max_sessions) {
      auto oldest = sessions_.begin();
      for (auto it = sessions_.begin(); it != sessions_.end(); ++it)
        if (it->second.used < oldest->second.used) oldest = it;
      sessions_.erase(oldest);
    }
    std::string id = new_session_id();
    sessions_[id] = SessionEntry{std::move(session), std::move(scope), std::chrono::steady_clock::now()};
    return id;
  }
  /// A copy of the session, when `id` names one opened with the same credentials.
  std::optional<McpSession> find(const std::string& id, const std::string& scope) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second.scope != scope) return std::nullopt;
    it->second.used = std::chrono::steady_clock::now();
    return it->second.session;
  }
  void update(const std::string& id, const McpSession& session) {
    std::lock_guard lock(mutex_);
    if (auto it = sessions_.find(id); it != sessions_.end()) it->second.session = session;
  }
  bool close(const std::string& id, const std::string& scope) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second.scope != scope) return false;
    sessions_.erase(it);
    return true;
  }

 private:
  /// 128 random bits as hex: visible ASCII, as the specification asks, and unguessable.
  static std::string new_session_id() {
    static thread_local std::random_device device;
    static constexpr char hex[] = "0123456789abcdef";
    std::string id;
    for (int i = 0; i < 4; ++i) {
      std::uint32_t word = device();
      for (int j = 0; j < 8; ++j, word >>= 4) id += hex[word & 15];
    }
    return id;
  }

  std::mutex mutex_;
  std::map<std::string, SessionEntry, std::less<>> sessions_;
};

HttpResponse jsonrpc_response(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

HttpResponse refused(int status, const json::value& id, const std::string& message) {
  return jsonrpc_response(status, mcp_error(id, jsonrpc_invalid_request, message));
}

HttpResponse accepted() {
  HttpResponse response;
  response.status = 202;
  response.content_type.clear();
  return response;
}

McpCaller caller_for(const Operations& ops, std::string scope) {
  return [&ops, scope = std::move(scope)](const std::string& operation, json::object params) {
    return ops.call(operation, OperationRequest{std::move(params), engine::Actor{"mcp"}, engine::VarOrigin::web, scope});
  };
}

/// The answer to a request, with `session_id` named on it; a blocking one waits on the
/// server's blocking pool.
HttpResponse answer(McpReply reply, const std::string& session_id) {
  HttpResponse response;
  if (reply.later) {
    response.blocking = [later = std::move(reply.later), session_id] {
      HttpResponse done = jsonrpc_response(200, later());
      done.headers.emplace_back("Mcp-Session-Id", session_id);
      return done;
    };
    return response;
  }
  if (!reply.text) return accepted();
  response = jsonrpc_response(200, std::move(*reply.text));
  response.headers.emplace_back("Mcp-Session-Id", session_id);
  return response;
}

HttpResponse post(Sessions& sessions, const Operations& ops, const McpServerInfo& info, const HttpRequest& request) {
  auto parsed = parse_mcp_message(request.body);
  if (auto* error = std::get_if<std::string>(&parsed)) return jsonrpc_response(400, std::move(*error));
  const McpMessage& message = std::get<McpMessage>(parsed);
  const json::value id = message.id.value_or(nullptr);
  const McpServer server(caller_for(ops, request.scope_run_id), info);
  if (message.method == "initialize") {
    if (!message.is_request()) return refused(400, id, "initialize is a request: give it an id");
    McpSession session;
    McpReply reply = server.handle(message, session);
    if (session.protocol_version.empty()) return jsonrpc_response(200, std::move(*reply.text));  // its error
    return answer(std::move(reply), sessions.open(std::move(session), request.scope_run_id));
  }
  if (const auto* version = request.header("mcp-protocol-version"); version && !is_supported_protocol_version(*version))
    return refused(400, id, "MCP-Protocol-Version '" + *version + "' is not one agentry speaks");
  const auto* session_id = request.header("mcp-session-id");
  if (!session_id)
    return refused(400, id, "the Mcp-Session-Id header is required: send the id initialize answered with");
  auto session = sessions.find(*session_id, request.scope_run_id);
  if (!session) return refused(404, id, "no MCP session '" + *session_id + "' (it ended): initialize again");
  McpReply reply = server.handle(message, *session);
  if (message.method == "notifications/initialized") sessions.update(*session_id, *session);
  return answer(std::move(reply), *session_id);
}

}  // namespace

void add_mcp_routes(Router& router, ApiContext& context, const Operations& ops) {
  auto sessions = std::make_shared<Sessions>();
  const McpServerInfo info{"agentry", context.daemon.version};
  router.add("POST", "/mcp", [sessions, &ops, info](const HttpRequest& request) {
    return post(*sessions, ops, info, request);
  });
  router.add("DELETE", "/mcp", [sessions](const HttpRequest& request) {
    const auto* session_id = request.header("mcp-session-id");
    if (!session_id) return refused(400, nullptr, "the Mcp-Session-Id header is required: the session to end");
    if (!sessions->close(*session_id, request.scope_run_id))
      return refused(404, nullptr, "no MCP session '" + *session_id + "'");
    HttpResponse ended;
    ended.status = 204;
    ended.content_type.clear();
    return ended;
  });
}

bool is_slow_mcp_request(std::string_view path, std::string_view body) {
  if (path != "/mcp" || body.find("tools/call") == std::string_view::npos) return false;
  boost::system::error_code ec;
  const auto value = json::parse(body, ec);
  if (ec || !value.is_object()) return false;
  const auto* params = value.as_object().if_contains("params");
  const auto* name = params && params->is_object() ? params->as_object().if_contains("name") : nullptr;
  if (!name || !name->is_string()) return false;
  const McpTool* tool = find_mcp_tool(name->as_string());
  return tool && is_slow_method(tool->operation);
}

}  // namespace agentry::api::mcp
