// `agentry mcp`: the MCP server on stdio, for agents that take MCP servers as commands
// (Claude Code, Codex...). One JSON-RPC message per line in on stdin, one answer per line
// out on stdout; stdout carries nothing else, logs go to stderr. The protocol is
// api/mcp/mcp_server.hpp, the same as the daemon's /mcp; the tools reach runs through
// this command's client: a daemon with --connect (what an agent's MCP config should
// use: the runs go on when the client stops), else embedded in this process, whose runs
// end with it.

#include "cli/commands/commands.hpp"

#include "api/mcp/mcp_server.hpp"
#include "core/log.hpp"

#include <iostream>

namespace agentry::cli {
namespace json = boost::json;

namespace {

/// Longer lines are refused, as the daemon refuses bodies over its limit.
constexpr std::size_t max_line_bytes = 16 * 1024 * 1024;

}  // namespace

int mcp_command(CommandContext& ctx, std::istream& in) {
  // Opened now, so a daemon that cannot be reached stops the server before a client
  // takes it for working.
  if (auto client = ctx.client(); !client) return ctx.report(client.error());
  api::mcp::McpCaller caller = [&ctx](const std::string& operation,
                                      json::object params) -> core::Result<api::OperationResult> {
    // A run started from an agent's MCP server starts where the agent works, as
    // `agentry run` starts in the current directory.
    if (operation == "runs.start" && !params.contains("callerCwd")) params["callerCwd"] = ctx.env().cwd.string();
    auto result = ctx.call(operation, std::move(params));
    if (!result) return result.failure();
    return api::OperationResult{std::move(*result)};
  };
  const api::mcp::McpServer server(std::move(caller), {"agentry", AGENTRY_VERSION});
  api::mcp::McpSession session;
  std::ostream& out = ctx.out();
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    api::mcp::McpReply reply;
    if (line.size() > max_line_bytes)
      reply.text = api::mcp::mcp_error(nullptr, api::jsonrpc_invalid_request, "message longer than 16 MiB");
    else
      reply = server.handle_text(line, session);
    if (reply.later) reply.text = reply.later();  // this process may wait: it serves one client
    if (reply.text) out << *reply.text << '\n' << std::flush;
  }
  core::log_info("mcp: stdin closed; stopping", {{"client", session.client_name}});
  return 0;
}

}  // namespace agentry::cli
