// The MCP protocol module with a recording stand-in for the API's operations: the
// handshake and version negotiation, the tool catalogue's schemas, how arguments reach
// operations, and which failures are JSON-RPC errors naming the field and which are tool
// results with isError.
#include "api/mcp/mcp_server.hpp"

#include "api/mcp/mcp_resources.hpp"
#include "api/mcp/mcp_schema.hpp"
#include "api/mcp/mcp_tools.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <set>

namespace agentry::api::mcp {
namespace {
namespace json = boost::json;

class McpServerTest : public ::testing::Test {
 protected:
  McpServerTest()
      : server_(
            [this](const std::string& operation, json::object params) -> core::Result<OperationResult> {
              calls_.emplace_back(operation, params);
              if (next_failure_) {
                auto failure = core::Failure{*next_failure_};
                next_failure_.reset();
                return failure;
              }
              if (operation == "runs.list")
                return OperationResult{json::object{
                    {"runs", json::array{json::object{{"runId", "r1"}, {"status", "success"}, {"agent", "coder"}}}},
                    {"nextCursor", "c2"}}};
              return OperationResult{json::object{{"echo", params}}};
            },
            {"agentry", "1.2.3"}) {}

  /// Sends one request; returns the whole answer.
  json::object send(const std::string& method, json::object params = {}) {
    json::object message{{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", std::move(params)}};
    auto reply = server_.handle_text(json::serialize(message), session_);
    if (reply.later) return json::parse(reply.later()).as_object();
    EXPECT_TRUE(reply.text.has_value()) << method;
    return reply.text ? json::parse(*reply.text).as_object() : json::object{};
  }
  json::object initialize(const std::string& version = "2025-06-18") {
    return send("initialize", {{"protocolVersion", version},
                               {"capabilities", json::object{}},
                               {"clientInfo", {{"name", "test-client"}, {"version", "0"}}}});
  }
  json::object call(const std::string& tool, json::object arguments) {
    return send("tools/call", {{"name", tool}, {"arguments", std::move(arguments)}});
  }
  static json::object error_of(const json::object& answer) {
    EXPECT_TRUE(answer.contains("error")) << json::serialize(answer);
    return answer.contains("error") ? answer.at("error").as_object() : json::object{};
  }

  std::vector<std::pair<std::string, json::object>> calls_;
  std::optional<core::Error> next_failure_;
  McpServer server_;
  McpSession session_;
  int id_ = 0;
};

TEST_F(McpServerTest, InitializeAnswersTheClientsVersionWhenSupportedAndTheNewestOtherwise) {
  for (const std::string version : {"2025-06-18", "2025-03-26", "2024-11-05"}) {
    auto answer = initialize(version);
    EXPECT_EQ(answer.at("result").at("protocolVersion"), version.c_str());
  }
  auto newer = initialize("2099-01-01");
  EXPECT_EQ(newer.at("result").at("protocolVersion"), "2025-06-18");
  const auto& result = newer.at("result").as_object();
  EXPECT_EQ(result.at("serverInfo").at("name"), "agentry");
  EXPECT_EQ(result.at("serverInfo").at("version"), "1.2.3");
  EXPECT_TRUE(result.at("capabilities").as_object().contains("tools"));
  EXPECT_TRUE(result.at("capabilities").as_object().contains("resources"));
  EXPECT_EQ(session_.client_name, "test-client");

  auto missing = send("initialize", {{"capabilities", json::object{}}});
  EXPECT_EQ(error_of(missing).at("code"), jsonrpc_invalid_params);
  EXPECT_EQ(error_of(missing).at("data").at("field"), "protocolVersion");
}

TEST_F(McpServerTest, NotificationsAndResponsesGetNoAnswer) {
  initialize();
  auto initialized = server_.handle_text(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", session_);
  EXPECT_FALSE(initialized.text.has_value());
  EXPECT_TRUE(session_.initialized);
  EXPECT_FALSE(server_.handle_text(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})",
                                   session_)
                   .text.has_value());
  EXPECT_FALSE(server_.handle_text(R"({"jsonrpc":"2.0","id":7,"result":{}})", session_).text.has_value());
  EXPECT_EQ(send("ping").at("result"), json::object{});
}

TEST_F(McpServerTest, MalformedMessagesAndUnknownMethodsAreJsonRpcErrors) {
  auto code_of = [&](std::string_view text) {
    auto reply = server_.handle_text(text, session_);
    return json::parse(reply.text.value()).at("error").at("code").as_int64();
  };
  EXPECT_EQ(code_of("{not json"), jsonrpc_parse_error);
  EXPECT_EQ(code_of("[]"), jsonrpc_invalid_request);
  EXPECT_EQ(code_of(R"({"jsonrpc":"1.0","id":1,"method":"ping"})"), jsonrpc_invalid_request);
  EXPECT_EQ(code_of(R"({"jsonrpc":"2.0","id":1})"), jsonrpc_invalid_request);
  EXPECT_EQ(code_of(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]})"), jsonrpc_invalid_params);
  auto unknown = error_of(send("prompts/list"));
  EXPECT_EQ(unknown.at("code"), jsonrpc_method_not_found);
  EXPECT_NE(std::string(unknown.at("message").as_string()).find("prompts/list"), std::string::npos);
}

TEST_F(McpServerTest, ToolsListGivesEveryToolWithAnObjectSchemaWhoseRequiredArgumentsAreProperties) {
  initialize();
  const auto answer = send("tools/list");
  const auto& tools = answer.at("result").at("tools").as_array();
  std::set<std::string> names;
  for (const auto& entry : tools) {
    const auto& tool = entry.as_object();
    const std::string name(tool.at("name").as_string());
    names.insert(name);
    EXPECT_FALSE(tool.at("description").as_string().empty()) << name;
    const auto& schema = tool.at("inputSchema").as_object();
    EXPECT_EQ(schema.at("type"), "object") << name;
    EXPECT_EQ(schema.at("additionalProperties"), false) << name;
    const auto& properties = schema.at("properties").as_object();
    if (const auto* required = schema.if_contains("required")) {
      for (const auto& field : required->as_array()) {
        EXPECT_TRUE(properties.contains(field.as_string())) << name << " requires " << field;
      }
    }
    for (const auto& [field, property] : properties) {
      EXPECT_TRUE(property.as_object().contains("type")) << name << "." << field;
    }
    EXPECT_TRUE(tool.at("annotations").as_object().contains("readOnlyHint")) << name;
  }
  const std::set<std::string> expected{"list_runs",   "show_run",      "start_run",       "resume_run", "abort_run",
                                       "list_tasks",  "set_task",      "add_task",        "queue_message",
                                       "answer_approval", "ask_run",   "read_timeline",   "read_diff"};
  EXPECT_EQ(names, expected);
}

TEST_F(McpServerTest, AToolCallsItsOperationWithItsArgumentsAndAnswersItsResult) {
  initialize();
  auto answer = call("start_run", {{"agent", "coder"}, {"message", "SAY: hi"}, {"overrides", {{"model", "m"}}}});
  ASSERT_EQ(calls_.size(), 1u);
  EXPECT_EQ(calls_[0].first, "runs.start");
  // message is the API's overrides.message
  const json::object expected{{"agent", "coder"}, {"overrides", {{"model", "m"}, {"message", "SAY: hi"}}}};
  EXPECT_EQ(calls_[0].second, expected);
  const auto& result = answer.at("result").as_object();
  EXPECT_EQ(result.at("isError"), false);
  EXPECT_EQ(result.at("structuredContent").at("echo"), expected);
  EXPECT_EQ(json::parse(result.at("content").at(0).at("text").as_string()), result.at("structuredContent"));
}

TEST_F(McpServerTest, StructuredContentOnlyFromTheVersionThatHasIt) {
  initialize("2025-03-26");
  auto answer = call("show_run", {{"runId", "r1"}});
  EXPECT_FALSE(answer.at("result").as_object().contains("structuredContent"));
  EXPECT_EQ(answer.at("result").at("content").at(0).at("type"), "text");
}

TEST_F(McpServerTest, AnUnknownToolIsAnInvalidParamsErrorNamingIt) {
  initialize();
  auto error = error_of(call("drop_tables", {}));
  EXPECT_EQ(error.at("code"), jsonrpc_invalid_params);
  EXPECT_EQ(error.at("data").at("field"), "name");
  EXPECT_EQ(error.at("data").at("tool"), "drop_tables");
  EXPECT_NE(std::string(error.at("message").as_string()).find("'drop_tables'"), std::string::npos);
  EXPECT_TRUE(calls_.empty());
}

TEST_F(McpServerTest, ArgumentsThatBreakTheSchemaAreInvalidParamsNamingTheField) {
  initialize();
  struct Case {
    std::string tool;
    json::object arguments;
    std::string field;
  };
  const std::vector<Case> cases{
      {"show_run", {}, "runId"},
      {"show_run", {{"runId", 42}}, "runId"},
      {"show_run", {{"runId", "r1"}, {"verbose", true}}, "verbose"},
      {"list_runs", {{"limit", 0}}, "limit"},
      {"list_runs", {{"limit", "ten"}}, "limit"},
      {"set_task", {{"runId", "r1"}, {"taskId", "t"}, {"status", "done"}}, "status"},
      {"answer_approval", {{"runId", "r1"}, {"approvalId", "a"}, {"decision", "maybe"}}, "decision"},
      {"ask_run", {{"runId", "r1"}, {"question", "q"}, {"timeoutSec", 301}}, "timeoutSec"},
  };
  for (const auto& c : cases) {
    auto error = error_of(call(c.tool, c.arguments));
    EXPECT_EQ(error.at("code"), jsonrpc_invalid_params) << c.tool << " " << json::serialize(c.arguments);
    EXPECT_EQ(error.at("data").at("field"), c.field.c_str()) << c.tool << " " << json::serialize(c.arguments);
    EXPECT_NE(std::string(error.at("message").as_string()).find("'" + c.field + "'"), std::string::npos)
        << error.at("message");
  }
  auto not_object = error_of(send("tools/call", {{"name", "show_run"}, {"arguments", "r1"}}));
  EXPECT_EQ(not_object.at("data").at("field"), "arguments");
  EXPECT_TRUE(calls_.empty());
}

TEST_F(McpServerTest, AnOperationRefusingAFieldIsInvalidParamsUnderTheToolsNameForIt) {
  initialize();
  next_failure_ = core::make_error(core::ErrorCode::invalid_request, "field 'overrides.message' is longer than 262144 bytes",
                                   {{"field", "overrides.message"}});
  auto error = error_of(call("start_run", {{"agent", "coder"}, {"message", "x"}}));
  EXPECT_EQ(error.at("code"), jsonrpc_invalid_params);
  EXPECT_EQ(error.at("data").at("field"), "message");
  EXPECT_EQ(error.at("message"), "field 'message' is longer than 262144 bytes");

  auto both = error_of(call("start_run", {{"message", "a"}, {"overrides", {{"message", "b"}}}}));
  EXPECT_EQ(both.at("data").at("field"), "message");
}

TEST_F(McpServerTest, AToolThatRunsAndFailsAnswersAnErrorResultTheModelCanRead) {
  initialize();
  next_failure_ = core::make_error(core::ErrorCode::conflict, "run r1 is running; abort it first", {{"status", "running"}});
  auto answer = call("resume_run", {{"runId", "r1"}});
  const auto& result = answer.at("result").as_object();
  EXPECT_EQ(result.at("isError"), true);
  const std::string text(result.at("content").at(0).at("text").as_string());
  EXPECT_NE(text.find("CONFLICT: run r1 is running; abort it first"), std::string::npos) << text;
  EXPECT_EQ(result.at("structuredContent").at("error").at("code"), "CONFLICT");

  // In the tool's terms: start_run's message is the API's overrides.message.
  next_failure_ = core::make_error(core::ErrorCode::validation, "nothing to do: give an assignment or overrides.message",
                                   {{"field", "assignment"}});
  auto nothing = call("start_run", {{"agent", "coder"}});
  EXPECT_EQ(nothing.at("result").at("structuredContent").at("error").at("message"),
            "nothing to do: give an assignment or message");

  next_failure_ = core::make_error(core::ErrorCode::internal, "sqlite said: disk I/O error");
  auto internal = call("show_run", {{"runId", "r1"}});
  const std::string hidden(internal.at("result").at("content").at(0).at("text").as_string());
  EXPECT_EQ(hidden.find("sqlite"), std::string::npos) << hidden;
}

TEST_F(McpServerTest, AnAnswerThatWaitsOnAProgramIsHandedToTheTransport) {
  McpServer waiting([](const std::string&, json::object) -> core::Result<OperationResult> {
    OperationResult later;
    later.blocking = [] { return core::Result<OperationResult>(OperationResult{json::object{{"task", "done"}}}); };
    return later;
  }, {"agentry", "0"});
  McpSession session;
  waiting.handle_text(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})",
                      session);
  auto reply = waiting.handle_text(
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"set_task","arguments":{"runId":"r","taskId":"t","status":"completed"}}})",
      session);
  EXPECT_FALSE(reply.text.has_value());
  ASSERT_TRUE(static_cast<bool>(reply.later));
  auto answer = json::parse(reply.later());
  EXPECT_EQ(answer.at("id"), 2);
  EXPECT_EQ(answer.at("result").at("structuredContent").at("task"), "done");
}

TEST_F(McpServerTest, ResourcesAreARunsDetailAndTimeline) {
  initialize();
  const auto answer = send("resources/templates/list");
  const auto& templates = answer.at("result").at("resourceTemplates").as_array();
  ASSERT_EQ(templates.size(), 2u);
  EXPECT_EQ(templates[0].at("uriTemplate"), "agentry://runs/{runId}");

  auto listed = send("resources/list").at("result").as_object();
  EXPECT_EQ(listed.at("resources").at(0).at("uri"), "agentry://runs/r1");
  EXPECT_EQ(listed.at("nextCursor"), "c2");

  auto read = send("resources/read", {{"uri", "agentry://runs/r1/timeline?after=5"}});
  EXPECT_EQ(calls_.back().first, "runs.timelineHistory");
  EXPECT_EQ(calls_.back().second, (json::object{{"runId", "r1"}, {"after", 5}}));
  const auto& contents = read.at("result").at("contents").at(0);
  EXPECT_EQ(contents.at("uri"), "agentry://runs/r1/timeline?after=5");
  EXPECT_EQ(contents.at("mimeType"), "application/json");

  send("resources/read", {{"uri", "agentry://runs/r1"}});
  EXPECT_EQ(calls_.back().first, "runs.get");

  for (const char* bad : {"file:///etc/passwd", "agentry://runs/../x", "agentry://runs/r1/files", "agentry://runs/r1/timeline?after=x"}) {
    auto error = error_of(send("resources/read", {{"uri", bad}}));
    EXPECT_EQ(error.at("code"), jsonrpc_invalid_params) << bad;
    EXPECT_EQ(error.at("data").at("field"), "uri") << bad;
  }
  next_failure_ = core::make_error(core::ErrorCode::not_found, "no run 'gone'");
  auto missing = error_of(send("resources/read", {{"uri", "agentry://runs/gone"}}));
  EXPECT_EQ(missing.at("code"), mcp_resource_not_found);
}

TEST(McpSchema, ChecksTypesRequiredEnumsRangesAndUnknownFieldsWithTheirPath) {
  const auto schema = json::parse(R"({"type":"object","additionalProperties":false,"required":["a"],
    "properties":{"a":{"type":"integer","minimum":1,"maximum":3},"b":{"type":["integer","string"]},
                  "c":{"type":"object","additionalProperties":false,"properties":{"d":{"type":"boolean"}}},
                  "e":{"type":"string","enum":["x","y"]}}})").as_object();
  auto problem = [&](const char* text) {
    auto p = check_against_schema(json::parse(text), schema);
    return p ? p->field + ": " + p->message : std::string("ok");
  };
  EXPECT_EQ(problem(R"({"a":2})"), "ok");
  EXPECT_EQ(problem(R"({"a":2.0,"b":"latest","c":{"d":true},"e":"y"})"), "ok");
  EXPECT_EQ(problem(R"({})"), "a: field 'a' is required");
  EXPECT_EQ(problem(R"({"a":4})"), "a: field 'a' must be at most 3");
  EXPECT_EQ(problem(R"({"a":1.5})"), "a: field 'a' must be an integer");
  EXPECT_EQ(problem(R"({"a":1,"b":true})"), "b: field 'b' must be an integer or string");
  EXPECT_EQ(problem(R"({"a":1,"c":{"z":1}})"), "c.z: unknown field 'c.z'; known: d");
  EXPECT_EQ(problem(R"({"a":1,"e":"z"})"), "e: field 'e' must be one of \"x\", \"y\"");
  EXPECT_EQ(problem(R"({"a":1,"f":1})"), "f: unknown field 'f'; known: a, b, c, e");
  EXPECT_EQ(problem(R"([])"), ": the arguments must be an object");
}

}  // namespace
}  // namespace agentry::api::mcp
