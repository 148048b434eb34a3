// The browser plugin's model mode and its ask extension, through the C ABI, against the
// real Chromium, the loopback test site and the real mock model process (tests/e2e/mock_model),
// scripted with TOOL: directives.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>

#include "agentry/plugin/ext/ask.h"
#include "browser_fixture.hpp"
#include "support/mock_model.hpp"
#include "support/temp_dir.hpp"

namespace agentry::test {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

json::object model_section(const MockModel& mock, const std::string& api) {
  return {{"api", api},
          {"baseUrl", api == "openai-responses" ? mock.openai_base_url() : mock.anthropic_base_url()},
          {"model", "mock-model"}};
}

std::string tool(const std::string& name, const json::object& args = {}) {
  return "TOOL: " + name + " " + json::serialize(args) + "\n";
}

struct ToolPair {
  json::object started, completed;
};

// The tool events in order, each TOOL_STARTED closed by its TOOL_COMPLETED (same toolCallId)
// before the next one starts.
std::vector<ToolPair> tool_pairs(const std::vector<RecordedEvent>& events) {
  std::vector<ToolPair> out;
  std::optional<json::object> open;
  for (const auto& ev : events) {
    if (ev.type == AGENTRY_EVENT_TOOL_STARTED) {
      EXPECT_FALSE(open) << "a tool started before the last one completed";
      open = ev.payload;
    } else if (ev.type == AGENTRY_EVENT_TOOL_COMPLETED) {
      EXPECT_TRUE(open) << "a tool completed that never started";
      if (!open) continue;
      EXPECT_EQ(open->at("toolCallId"), ev.payload.at("toolCallId"));
      EXPECT_EQ(ev.payload.at("tool"), "browser");
      out.push_back({*open, ev.payload});
      open.reset();
    }
  }
  EXPECT_FALSE(open) << "a tool never completed";
  return out;
}

std::vector<json::object> events_of(const Instance& in, uint16_t type) {
  std::vector<json::object> out;
  for (const auto& ev : in.host_.events())
    if (ev.type == type) out.push_back(ev.payload);
  return out;
}

// Waits until the mock has logged `count` requests to `path_part`.
bool wait_for_requests(const MockModel& mock, const std::string& path_part, std::size_t count, seconds limit) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    if (mock.request_bodies(path_part).size() >= count) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return false;
}

std::string text_of(const json::value& v) { return v.is_string() ? std::string(v.get_string()) : json::serialize(v); }

class BrowserModel : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/chromium")) GTEST_SKIP() << "/usr/bin/chromium is not installed (apt-get install chromium)";
    ASSERT_NE(browser_factory(), nullptr);
  }
  TempDir logs_;
  fs::path log_ = logs_.path() / "requests.jsonl";
};

TEST_F(BrowserModel, AnOpenAiModelFillsTheFormAndReportsTheResultPage) {
  BrowserSite site;
  MockModel mock(log_);
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  const std::string summary = "The result page says: You sent: model words";
  const std::string prompt = "Send 'model words' through the form and say what the result page shows.\n" +
                             tool("navigate", {{"url", site.url("/")}}) + tool("read") +
                             tool("type", {{"ref", "e1"}, {"text", "model words"}}) + "SAY: Sending the form.\n" +
                             tool("click", {{"selector", "#go"}}) + tool("read") +
                             tool("screenshot", {{"name", "model-result"}}) + tool("finish", {{"summary", summary}});
  ASSERT_EQ(in.start({{"model", model_section(mock, "openai-responses")}}, profile, false, {}, prompt), AGENTRY_OK);
  const json::object fin = in.wait_finished();
  EXPECT_EQ(fin.at("outcome"), "success") << json::serialize(fin);

  const auto pairs = tool_pairs(in.host_.events());
  ASSERT_EQ(pairs.size(), 6u);
  const std::vector<std::string> commands = {"navigate " + site.url("/"), "read", "type ref e1 \"model words\"",
                                             "click #go", "read", "screenshot model-result"};
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(text_of(pairs[i].started.at("command")), commands[i]);
    EXPECT_EQ(pairs[i].completed.at("status"), "completed") << json::serialize(pairs[i].completed);
  }
  EXPECT_EQ(text_of(pairs[0].started.at("input").at("url")), site.url("/"));
  EXPECT_NE(text_of(pairs[4].completed.at("output")).find("You sent: model words"), std::string::npos);
  EXPECT_EQ(text_of(pairs[5].completed.at("result").at("path")),
            (in.workspace_.path() / "browser-artifacts" / "model-result.png").string());
  EXPECT_TRUE(fs::exists(in.workspace_.path() / "browser-artifacts" / "model-result.png"));

  const auto usage = events_of(in, AGENTRY_EVENT_USAGE);
  ASSERT_EQ(usage.size(), 7u);  // one per model call: six actions and finish
  for (const auto& u : usage) EXPECT_GT(u.at("inputTokens").as_int64(), 0);
  const auto messages = events_of(in, AGENTRY_EVENT_MESSAGE_COMPLETED);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].at("text"), "Sending the form.");
  EXPECT_EQ(text_of(messages[1].at("text")), summary);
  EXPECT_EQ(in.host_.events().back().type, AGENTRY_EVENT_FINISHED);

  // What the model was sent: non-streamed calls offering the eleven tools, and each
  // action's result given back, the result page's text included.
  const auto bodies = mock.request_bodies("/responses");
  ASSERT_EQ(bodies.size(), 7u);
  for (const auto& b : bodies) {
    EXPECT_EQ(b.at("stream"), false);
    EXPECT_EQ(b.at("tools").as_array().size(), 11u);
    EXPECT_FALSE(b.at("instructions").as_string().empty());
  }
  std::vector<std::string> outputs, call_ids;
  for (const auto& item : bodies.back().at("input").as_array()) {
    if (item.at("type") == "function_call") call_ids.emplace_back(item.at("call_id").as_string());
    if (item.at("type") == "function_call_output") {
      outputs.emplace_back(item.at("output").as_string());
      EXPECT_EQ(std::string(item.at("call_id").as_string()), call_ids.at(outputs.size() - 1));
    }
  }
  ASSERT_EQ(outputs.size(), 6u);
  EXPECT_NE(outputs[1].find("[e1] input"), std::string::npos) << outputs[1];
  EXPECT_NE(outputs[4].find("You sent: model words"), std::string::npos) << outputs[4];
  EXPECT_EQ(live_processes_naming(profile), 0);
}

TEST_F(BrowserModel, AnAnthropicModelSendsTheFormWithAKeyPress) {
  BrowserSite site;
  MockModel mock(log_);
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  const std::string prompt = tool("navigate", {{"url", site.url("/")}}) +
                             tool("type", {{"selector", "#q"}, {"text", "claude words"}}) + tool("press", {{"key", "Enter"}}) +
                             tool("read") + tool("finish", {{"summary", "sent"}});
  ASSERT_EQ(in.start({{"model", model_section(mock, "anthropic-messages")}}, profile, false, {}, prompt), AGENTRY_OK);
  const json::object fin = in.wait_finished();
  EXPECT_EQ(fin.at("outcome"), "success") << json::serialize(fin);
  const auto pairs = tool_pairs(in.host_.events());
  ASSERT_EQ(pairs.size(), 4u);
  EXPECT_NE(text_of(pairs[3].completed.at("output")).find("You sent: claude words"), std::string::npos);
  EXPECT_EQ(events_of(in, AGENTRY_EVENT_USAGE).size(), 5u);
  const auto bodies = mock.request_bodies("/messages");
  ASSERT_EQ(bodies.size(), 5u);
  EXPECT_EQ(bodies[0].at("tools").as_array().size(), 11u);
  EXPECT_TRUE(bodies[0].at("tools").as_array()[0].as_object().contains("input_schema"));
  // The last call carries the history: tool_use blocks answered by tool_result blocks.
  const auto& messages = bodies.back().at("messages").as_array();
  ASSERT_EQ(messages.size(), 9u);  // the prompt, then four (tool_use, tool_result) rounds
  const auto& last = messages.back().at("content").as_array()[0].as_object();
  EXPECT_EQ(last.at("type"), "tool_result");
  EXPECT_EQ(last.at("tool_use_id"), messages[7].at("content").as_array().back().at("id"));
  EXPECT_NE(text_of(last.at("content")).find("You sent: claude words"), std::string::npos);
  EXPECT_EQ(in.messages(), "sent\n");
}

TEST_F(BrowserModel, AResumedAttemptContinuesTheConversationWithTheCookieKept) {
  BrowserSite site;
  MockModel mock(log_);
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  const json::object model{{"model", model_section(mock, "openai-responses")}};
  const std::string first = "Set the cookie.\n" + tool("navigate", {{"url", site.url("/set-cookie")}}) +
                            tool("finish", {{"summary", "cookie set"}});
  ASSERT_EQ(in.start(model, profile, false, {}, first), AGENTRY_OK);
  EXPECT_EQ(in.wait_finished().at("outcome"), "success");
  EXPECT_TRUE(fs::exists(fs::path(profile) / "conversation.json"));
  const std::string second = "Now show me the cookie.\n" + tool("navigate", {{"url", site.url("/show-cookie")}}) +
                             tool("read") + tool("finish", {{"summary", "shown"}});
  ASSERT_EQ(in.start(model, profile, true, {}, second), AGENTRY_OK);
  EXPECT_EQ(in.wait_finished().at("outcome"), "success");

  const auto bodies = mock.request_bodies("/responses");
  ASSERT_EQ(bodies.size(), 5u);
  // The resumed attempt's first call: the saved conversation, then the new prompt.
  const auto& input = bodies[2].at("input").as_array();
  ASSERT_EQ(input.size(), 6u);  // prompt, (call, output) x2, new prompt
  EXPECT_EQ(text_of(input[0].at("content").as_array()[0].at("text")), first);
  EXPECT_EQ(input[1].at("name"), "navigate");
  EXPECT_EQ(input[3].at("name"), "finish");
  EXPECT_EQ(input[4].at("type"), "function_call_output");
  EXPECT_EQ(input[5].at("role"), "user");
  EXPECT_EQ(text_of(input[5].at("content").as_array()[0].at("text")), second);
  bool noticed = false;
  for (const auto& n : events_of(in, AGENTRY_EVENT_NOTICE))
    noticed = noticed || text_of(n.at("message")).find("continuing the model conversation") != std::string::npos;
  EXPECT_TRUE(noticed);
  const auto pairs = tool_pairs(in.host_.events());
  ASSERT_EQ(pairs.size(), 3u);  // navigate, then navigate and read
  EXPECT_NE(text_of(pairs[2].completed.at("output")).find("cookie: [flavour=ginger]"), std::string::npos)
      << json::serialize(pairs[2].completed);
}

TEST_F(BrowserModel, InterruptDuringAStalledModelCallEndsAtOnceWithoutChromium) {
  BrowserSite site;
  MockModel mock(log_);
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  const std::string prompt = tool("navigate", {{"url", site.url("/")}}) + "SAY: thinking\nSTALL: 60\n";
  ASSERT_EQ(in.start({{"model", model_section(mock, "openai-responses")}}, profile, false, {}, prompt), AGENTRY_OK);
  ASSERT_TRUE(wait_for_requests(mock, "/responses", 2, seconds(60)));  // the second call is the stalled one
  EXPECT_GT(live_processes_naming(profile), 0);
  const auto t0 = Clock::now();
  in.backend()->interrupt(in.backend(), "stop now");
  const json::object fin = in.wait_finished(seconds(10));
  const auto ms = std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
  std::cerr << "interrupt to FINISHED during a stalled model call: " << ms << " ms\n";
  EXPECT_EQ(fin.at("outcome"), "interrupted") << json::serialize(fin);
  EXPECT_EQ(fin.at("message"), "stop now");
  EXPECT_EQ(live_processes_naming(profile), 0);
}

TEST_F(BrowserModel, AnApiErrorEndsTheAttemptNamingTheStatus) {
  MockModel mock(log_);
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  ASSERT_EQ(in.start({{"model", model_section(mock, "anthropic-messages")}}, profile, false, {}, "FAIL: 500"), AGENTRY_OK);
  const json::object fin = in.wait_finished();
  EXPECT_EQ(fin.at("outcome"), "error");
  const std::string message = text_of(fin.at("message"));
  EXPECT_NE(message.find("HTTP 500"), std::string::npos) << message;
  EXPECT_NE(message.find("scripted failure"), std::string::npos) << message;  // the API's own error text
  EXPECT_EQ(live_processes_naming(profile), 0);
}

TEST_F(BrowserModel, AModelCallOverRequestTimeoutMsEndsInError) {
  MockModel mock(log_);
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  json::object model = model_section(mock, "openai-responses");
  model["requestTimeoutMs"] = 1000;
  ASSERT_EQ(in.start({{"model", model}}, profile, false, {}, "SAY: slow\nSTALL: 30"), AGENTRY_OK);
  const json::object fin = in.wait_finished(seconds(30));
  EXPECT_EQ(fin.at("outcome"), "error");
  EXPECT_NE(text_of(fin.at("message")).find("did not answer within 1000 ms (requestTimeoutMs)"), std::string::npos)
      << json::serialize(fin);
  EXPECT_EQ(live_processes_naming(profile), 0);
}

TEST_F(BrowserModel, AnUnknownToolOrABadArgumentIsRefusedAndTheModelGoesOn) {
  MockModel mock(log_);
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  const std::string prompt = tool("hover", {{"ref", "e1"}}) + tool("click", {}) + "TOOL: read {not json\n" +
                             tool("finish", {{"summary", "gave up"}});
  ASSERT_EQ(in.start({{"model", model_section(mock, "openai-responses")}}, profile, false, {}, prompt), AGENTRY_OK);
  const json::object fin = in.wait_finished();
  EXPECT_EQ(fin.at("outcome"), "success") << json::serialize(fin);
  const auto pairs = tool_pairs(in.host_.events());
  ASSERT_EQ(pairs.size(), 3u);
  for (const auto& p : pairs) EXPECT_EQ(p.completed.at("status"), "failed");
  EXPECT_NE(text_of(pairs[0].completed.at("output")).find("no tool \"hover\""), std::string::npos);
  EXPECT_NE(text_of(pairs[1].completed.at("output")).find("exactly one of \"selector\" or \"ref\""), std::string::npos);
  EXPECT_NE(text_of(pairs[2].completed.at("output")).find("not a JSON object"), std::string::npos);
  // The refusals went back to the model, which then finished.
  std::vector<std::string> outputs;
  const auto bodies = mock.request_bodies("/responses");
  for (const auto& item : bodies.back().at("input").as_array())
    if (item.at("type") == "function_call_output") outputs.emplace_back(item.at("output").as_string());
  ASSERT_EQ(outputs.size(), 3u);
  for (const auto& o : outputs) EXPECT_EQ(o.rfind("refused: ", 0), 0u) << o;
  EXPECT_EQ(in.messages(), "gave up\n");
}

TEST_F(BrowserModel, TooManyStepsEndInError) {
  MockModel mock(log_);
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  json::object model = model_section(mock, "openai-responses");
  model["maxSteps"] = 2;
  ASSERT_EQ(in.start({{"model", model}}, profile, false, {}, tool("read") + tool("read") + tool("read")), AGENTRY_OK);
  const json::object fin = in.wait_finished();
  EXPECT_EQ(fin.at("outcome"), "error");
  EXPECT_NE(text_of(fin.at("message")).find("maxSteps (2"), std::string::npos) << json::serialize(fin);
  EXPECT_EQ(mock.request_bodies("/responses").size(), 2u);
}

TEST_F(BrowserModel, ATextOnlyReplyEndsTheAttemptWithThatText) {
  MockModel mock(log_);
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  ASSERT_EQ(in.start({{"model", model_section(mock, "anthropic-messages")}}, profile, false, {},
                     "SAY: There is nothing to do."),
            AGENTRY_OK);
  EXPECT_EQ(in.wait_finished().at("outcome"), "success");
  EXPECT_EQ(in.messages(), "There is nothing to do.\n");
  EXPECT_TRUE(events_of(in, AGENTRY_EVENT_TOOL_STARTED).empty());
}

TEST_F(BrowserModel, BadModelSettingsFailNamingTheField) {
  const std::string base = "http://127.0.0.1:9";  // never called: the settings fail first
  struct Case {
    json::value model;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {json::object{{"api", "gemini"}, {"baseUrl", base}, {"model", "m"}}, "backendConfig.browser.model.api"},
      {json::object{{"api", "openai-responses"}, {"baseUrl", "ftp://host/"}, {"model", "m"}},
       "backendConfig.browser.model.baseUrl"},
      {json::object{{"api", "openai-responses"}, {"baseUrl", base}}, "backendConfig.browser.model.model"},
      {json::object{{"api", "openai-responses"}, {"baseUrl", base}, {"model", "m"}, {"maxSteps", 0}},
       "backendConfig.browser.model.maxSteps"},
      {json::object{{"api", "openai-responses"}, {"baseUrl", base}, {"model", "m"}, {"requestTimeoutMs", "soon"}},
       "backendConfig.browser.model.requestTimeoutMs"},
      {json::object{{"api", "openai-responses"}, {"baseUrl", base}, {"model", "m"}, {"apiKeyEnv", "AGENTRY_TEST_NO_SUCH_KEY"}},
       "backendConfig.browser.model.apiKeyEnv names AGENTRY_TEST_NO_SUCH_KEY"},
      {json::object{{"api", "openai-responses"}, {"baseUrl", base}, {"model", "m"}, {"temperature", 1}},
       "unknown field \"temperature\""},
      {json::value("gpt-5"), "backendConfig.browser.model must be an object"},
  };
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  for (const Case& c : cases) {
    ASSERT_EQ(in.start({{"model", c.model}}, profile, false, {}, "do it"), AGENTRY_OK);
    const json::object fin = in.wait_finished(seconds(10));
    EXPECT_EQ(fin.at("outcome"), "error");
    EXPECT_NE(text_of(fin.at("message")).find(c.expected), std::string::npos) << json::serialize(fin);
  }
  EXPECT_FALSE(fs::exists(profile)) << "no Chromium was started";
}

// --- ask -------------------------------------------------------------------------------

const agentry_backend_ask_t* ask_table(const Instance& in) {
  return static_cast<const agentry_backend_ask_t*>(in.backend()->get_extension(in.backend(), AGENTRY_EXT_ASK));
}

json::object ask_request(const json::object& config, const std::string& question) {
  return {{"askId", "ask-1"},
          {"question", question},
          {"runId", "run-1"},
          {"config", config},
          {"workspacePath", "/tmp"},
          {"resumeToken", nullptr},
          {"state",
           {{"status", "success"},
            {"statusReason", nullptr},
            {"tasks", json::array{{{"id", "t1"}, {"title", "Send the form"}, {"status", "completed"}}}},
            {"recentTimeline",
             json::array{{{"type", "tool.completed"}, {"tool", "browser"}, {"status", "completed"}, {"text", "typed model words"}}}},
            {"finalMessage", "The result page says: You sent: model words"},
            {"latestFrame", {{"mime", "image/jpeg"}, {"data", "/9j/4AAQSkZJRgABAQ=="}}}}}};
}

TEST_F(BrowserModel, AskAnswersThroughTheHostWithOneModelCallAndNoEvents) {
  MockModel mock(log_);
  Instance in;
  const auto* ask = ask_table(in);
  ASSERT_NE(ask, nullptr);
  bool listed = false;
  for (const char* const* f = browser_factory()->get_backend_descriptor(browser_factory(), 0)->features; *f; ++f)
    listed = listed || std::string(*f) == "ask";
  EXPECT_TRUE(listed);
  const std::string request = json::serialize(ask_request(
      {{"model", model_section(mock, "openai-responses")}}, "What did the agent send?\nSAY: It sent model words."));
  ASSERT_EQ(ask->ask(in.backend(), "ask-1", request.c_str()), AGENTRY_OK);
  ASSERT_TRUE(in.host_.wait_for_answers(1, seconds(30)));
  const auto answers = in.host_.answers();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].ask_id, "ask-1");
  EXPECT_EQ(answers[0].answer.at("answer"), "It sent model words.") << json::serialize(answers[0].answer);
  EXPECT_GT(answers[0].answer.at("usage").at("inputTokens").as_int64(), 0);
  EXPECT_TRUE(in.host_.events().empty());
  // One call, no tools; the state and the frame went with the question.
  const auto bodies = mock.request_bodies("/responses");
  ASSERT_EQ(bodies.size(), 1u);
  EXPECT_FALSE(bodies[0].contains("tools"));
  const auto& content = bodies[0].at("input").as_array()[0].at("content").as_array();
  const std::string text = text_of(content[0].at("text"));
  for (const char* part : {"Send the form", "typed model words", "You sent: model words", "What did the agent send?"})
    EXPECT_NE(text.find(part), std::string::npos) << part << " missing from:\n" << text;
  ASSERT_EQ(content.size(), 2u);
  EXPECT_EQ(content[1].at("image_url"), "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ==");
}

TEST_F(BrowserModel, AskWithoutAModelIsUnsupportedAndAMalformedOneInvalid) {
  Instance in;
  const auto* ask = ask_table(in);
  ASSERT_NE(ask, nullptr);
  const std::string scripted = json::serialize(ask_request({{"steps", json::array{{{"action", "read"}}}}}, "what?"));
  EXPECT_EQ(ask->ask(in.backend(), "ask-1", scripted.c_str()), AGENTRY_ERR_UNSUPPORTED);
  EXPECT_EQ(ask->ask(in.backend(), "ask-2", "not json"), AGENTRY_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ask->ask(in.backend(), "ask-3", R"({"question": 42})"), AGENTRY_ERR_INVALID_ARGUMENT);
  in.destroy();
  EXPECT_TRUE(in.host_.answers().empty());
}

TEST_F(BrowserModel, DestroyAbandonsAPendingAskAtOnceAndAnswersOnce) {
  MockModel mock(log_);
  Instance in;
  const std::string request = json::serialize(
      ask_request({{"backendConfig", {{"model", model_section(mock, "anthropic-messages")}}}}, "STALL: 60"));
  ASSERT_EQ(ask_table(in)->ask(in.backend(), "ask-1", request.c_str()), AGENTRY_OK);
  ASSERT_TRUE(wait_for_requests(mock, "/messages", 1, seconds(30)));
  const auto t0 = Clock::now();
  in.destroy();
  const auto ms = std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
  EXPECT_LT(ms, 5000) << "destroy waited for the stalled model call";
  const auto answers = in.host_.answers();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_NE(text_of(answers[0].answer.at("error")).find("abandoned"), std::string::npos);
}

}  // namespace
}  // namespace agentry::test
