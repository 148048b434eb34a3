#include "api/mcp/mcp_tools.hpp"

#include <boost/json/parse.hpp>

#include <stdexcept>

namespace agentry::api::mcp {
namespace json = boost::json;

namespace {

// The schemas are JSON text, as clients see them. `additionalProperties: false` on each:
// an argument the operation does not take is refused naming it, as the API refuses an
// unknown field.

constexpr const char* run_id_property =
    R"j("runId": {"type": "string", "description": "The run's id (1-64 letters, digits, _ and -)"})j";

std::string object_schema(const std::string& properties, const std::string& required = "") {
  return R"j({"type": "object", "additionalProperties": false, "properties": {)j" + properties + "}" +
         (required.empty() ? "" : R"j(, "required": [)j" + required + "]") + "}";
}

json::object schema(const std::string& text) {
  auto value = json::parse(text);
  if (!value.is_object()) throw std::logic_error("an MCP tool schema must be an object: " + text);
  return std::move(value.as_object());
}

std::vector<McpTool> make_tools() {
  const std::string run_id = run_id_property;
  std::vector<McpTool> tools;
  tools.push_back({"list_runs", "List runs",
                   "List runs, newest first: id, status, agent, name, group and task progress of each. By default the "
                   "runs of every directory; give at most one of runGroupId, cwd, repo or global. Page with cursor.",
                   "runs.list",
                   schema(object_schema(
                       R"j("runGroupId": {"type": "string", "description": "Only the runs of this group"},
                          "cwd": {"type": "string", "description": "Only the runs started in this directory"},
                          "repo": {"type": "string", "description": "Only the runs in this git repository"},
                          "global": {"type": "boolean", "description": "true: every directory (the default)"},
                          "includeArchived": {"type": "boolean", "description": "Archived runs too"},
                          "limit": {"type": "integer", "minimum": 1, "maximum": 500, "description": "At most this many runs (default 50)"},
                          "cursor": {"type": "string", "description": "nextCursor of the previous page"})j")),
                   true, false, true});
  tools.push_back({"show_run", "Show a run",
                   "A run's detail: status, agent, assignment, message, cwd, sessions and attempts, tasks, pending "
                   "approvals, queued messages, and what the run can do next (canResume, canAbort...).",
                   "runs.get", schema(object_schema(run_id, R"j("runId")j")), true, false, true});
  tools.push_back(
      {"start_run", "Start a run",
       "Start a run of an agent (a definition in the daemon's config directory) and return its detail at once; "
       "the run goes on in the daemon. Follow it with show_run or read_timeline.",
       "runs.start",
       schema(object_schema(
           R"j("agent": {"type": "string", "description": "The agent to run (see the daemon's agents)"},
              "assignment": {"type": "string", "description": "An assignment for the agent, by name"},
              "message": {"type": "string", "description": "What the agent is asked to do: the run's message"},
              "callerCwd": {"type": "string", "description": "The directory the run starts from (an absolute path); the run's cwd unless its definitions name one"},
              "name": {"type": "string", "description": "A name for the run"},
              "runGroupId": {"type": "string", "description": "Put the run in this group"},
              "parentRunId": {"type": "string", "description": "The run this one is a child of"},
              "notifyParentOnComplete": {"type": "boolean", "description": "Tell the parent run when this one ends"},
              "cliVars": {"type": "object", "description": "Values of the assignment's vars, by name"},
              "overrides": {"type": "object", "description": "Per-run overrides of the definitions: cwd, model, effort, timeoutSec, maxRetries, backend, backendConfig, launcher, environment, unrestricted"})j")),
       false, false, false, {{"message", "overrides.message"}}});
  tools.push_back({"resume_run", "Resume a run",
                   "Start the next session of a run that has ended (or is waiting), optionally with a new message.",
                   "runs.resume",
                   schema(object_schema(run_id + R"j(, "message": {"type": "string", "description": "The message for the new session"})j",
                                        R"j("runId")j")),
                   false, false, false});
  tools.push_back({"abort_run", "Abort a run",
                   "Stop a run: accepted at once, the run ends aborted once its agent has stopped.", "runs.abort",
                   schema(object_schema(run_id + R"j(, "reason": {"type": "string", "description": "Why, for the run's audit"})j",
                                        R"j("runId")j")),
                   false, true, true});
  tools.push_back({"list_tasks", "List a run's tasks", "A run's tasks, in order: id, title, status and notes.",
                   "tasks.list", schema(object_schema(run_id, R"j("runId")j")), true, false, true});
  tools.push_back(
      {"set_task", "Update a task",
       "Set a task's status (pending, in_progress, completed, blocked), notes, title or body. The run's hooks "
       "may refuse a status change; the refusal says why.",
       "tasks.set",
       schema(object_schema(
           run_id + R"j(, "taskId": {"type": "string", "description": "The task's id"},
              "status": {"type": "string", "enum": ["pending", "in_progress", "completed", "blocked"]},
              "notes": {"type": "string", "description": "Replaces the task's notes"},
              "title": {"type": "string"}, "body": {"type": "string"})j",
           R"j("runId", "taskId")j")),
       false, false, true});
  tools.push_back({"add_task", "Add a task", "Add a task to a run's list.", "tasks.add",
                   schema(object_schema(run_id + R"j(, "id": {"type": "string", "description": "The new task's id (default: made from the title)"},
                                        "title": {"type": "string"}, "body": {"type": "string"})j",
                                        R"j("runId", "title")j")),
                   false, false, false});
  tools.push_back({"queue_message", "Queue a message",
                   "Queue a message for a run: its agent gets it as the next turn (or the run's next session).",
                   "runs.queueResumeMessage",
                   schema(object_schema(run_id + R"j(, "text": {"type": "string", "description": "The message"})j",
                                        R"j("runId", "text")j")),
                   false, false, false});
  tools.push_back({"answer_approval", "Answer an approval",
                   "Approve or deny what a run's agent asked permission for (show_run lists pendingApprovals).",
                   "runs.answerApproval",
                   schema(object_schema(run_id + R"j(, "approvalId": {"type": "string", "description": "From the run's pendingApprovals"},
                                        "decision": {"type": "string", "enum": ["approve", "deny"]})j",
                                        R"j("runId", "approvalId", "decision")j")),
                   false, false, false});
  tools.push_back({"ask_run", "Ask a run",
                   "Ask a run's agent a question about its state and get its answer, without starting a turn "
                   "(backends that can answer: see the run's capabilities). Waits for the answer.",
                   "runs.ask",
                   schema(object_schema(run_id + R"j(, "question": {"type": "string"},
                                        "timeoutSec": {"type": "integer", "minimum": 1, "maximum": 300, "description": "How long to wait (default 60)"})j",
                                        R"j("runId", "question")j")),
                   true, false, false});
  tools.push_back({"read_timeline", "Read a run's timeline",
                   "One page of a run's timeline (messages, tool calls, status changes), oldest first after a "
                   "cursor, or the newest page with before: \"latest\". Page on with lastCursor.",
                   "runs.timelineHistory",
                   schema(object_schema(run_id + R"j(, "after": {"type": "integer", "minimum": 0, "description": "Events after this cursor (default 0)"},
                                        "before": {"type": ["integer", "string"], "description": "The newest page below this cursor, or \"latest\""},
                                        "limit": {"type": "integer", "minimum": 1, "maximum": 5000, "description": "At most this many events"})j",
                                        R"j("runId")j")),
                   true, false, true});
  tools.push_back({"read_diff", "Read a run's diff",
                   "The changes in a run's workspace (a git repository): the working tree against HEAD by default, "
                   "or a branch against a base.",
                   "workspace.diff",
                   schema(object_schema(run_id + R"j(, "mode": {"type": "string", "enum": ["working-tree", "branch"]},
                                        "base": {"type": "string", "description": "mode branch: the ref to compare against"},
                                        "head": {"type": "string", "description": "mode branch: default HEAD"},
                                        "comparison": {"type": "string", "enum": ["merge-base", "direct"]},
                                        "stat": {"type": "boolean", "description": "Only the files and counts, no patch"})j",
                                        R"j("runId")j")),
                   true, false, true});
  return tools;
}

}  // namespace

const std::vector<McpTool>& mcp_tools() {
  static const std::vector<McpTool> tools = make_tools();
  return tools;
}

const McpTool* find_mcp_tool(std::string_view name) {
  for (const auto& tool : mcp_tools())
    if (tool.name == name) return &tool;
  return nullptr;
}

core::Result<json::object> operation_params(const McpTool& tool, const json::object& arguments) {
  json::object params = arguments;
  for (const auto& [argument, target] : tool.renames) {
    auto* value = params.if_contains(argument);
    if (!value) continue;
    json::value moved = std::move(*value);
    params.erase(argument);
    const auto dot = target.find('.');
    if (dot == std::string::npos) {
      params[target] = std::move(moved);
      continue;
    }
    const std::string outer = target.substr(0, dot), inner = target.substr(dot + 1);
    json::value& nested = params[outer];
    if (nested.is_null()) nested = json::object{};
    if (!nested.is_object())
      return core::fail(core::ErrorCode::invalid_request, "field '" + outer + "' must be an object",
                        {{"field", outer}});
    if (nested.as_object().contains(inner))
      return core::fail(core::ErrorCode::invalid_request,
                        "give '" + argument + "' or '" + target + "', not both", {{"field", argument}});
    nested.as_object()[inner] = std::move(moved);
  }
  return params;
}

std::string tool_field(const McpTool& tool, std::string_view operation_field) {
  for (const auto& [argument, target] : tool.renames)
    if (target == operation_field) return argument;
  return std::string(operation_field);
}

json::object tool_listing(const McpTool& tool) {
  return {{"name", tool.name},
          {"title", tool.title},
          {"description", tool.description},
          {"inputSchema", tool.input_schema},
          {"annotations",
           {{"title", tool.title},
            {"readOnlyHint", tool.read_only},
            {"destructiveHint", tool.destructive},
            {"idempotentHint", tool.idempotent},
            {"openWorldHint", false}}}};
}

}  // namespace agentry::api::mcp
