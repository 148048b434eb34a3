// The model mode's pieces that need neither Chromium nor a model: the saved conversation,
// both API adapters, the model settings and the tool calls' validation.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "browser/browser_tools.hpp"
#include "browser/conversation.hpp"
#include "browser/model_api.hpp"
#include "browser/model_settings.hpp"
#include "support/temp_dir.hpp"

namespace agentry::browser {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;

Conversation sample() {
  Conversation c;
  c.push_back(Message{Message::Role::user, "fill the form", {}, {}, false, Image{"image/png", "iVBORw=="}});
  c.push_back(Message{Message::Role::assistant, "looking", {ToolCall{"c1", "read", {}, {}}, ToolCall{"c2", "click", {{"ref", "e2"}}, {}}}, {}, false, std::nullopt});
  c.push_back(Message{Message::Role::tool, "Page: Form", {}, "c1", false, std::nullopt});
  c.push_back(Message{Message::Role::tool, "no element has ref", {}, "c2", true, std::nullopt});
  c.push_back(Message{Message::Role::assistant, "", {ToolCall{"c3", "finish", {{"summary", "done"}}, {}}}, {}, false, std::nullopt});
  c.push_back(Message{Message::Role::tool, "finished", {}, "c3", false, std::nullopt});
  c.push_back(Message{Message::Role::user, "and now?", {}, {}, false, std::nullopt});
  return c;
}

TEST(Conversation, SurvivesASaveAndALoad) {
  test::TempDir dir;
  const std::string path = (dir.path() / "conversation.json").string();
  std::string error;
  auto empty = load_conversation(path, error);
  ASSERT_TRUE(empty) << error;
  EXPECT_TRUE(empty->empty());
  ASSERT_EQ(save_conversation(path, sample()), "");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  auto loaded = load_conversation(path, error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(json::serialize(to_json(*loaded)), json::serialize(to_json(sample())));
  EXPECT_EQ((*loaded)[3].is_error, true);
  EXPECT_EQ((*loaded)[1].calls[1].arguments.at("ref"), "e2");
  EXPECT_EQ((*loaded)[0].image->mime, "image/png");
}

TEST(Conversation, AFileThatIsNotOneIsReported) {
  test::TempDir dir;
  const std::string path = (dir.path() / "conversation.json").string();
  std::string error;
  std::ofstream(path) << "{not json";
  EXPECT_FALSE(load_conversation(path, error));
  EXPECT_NE(error.find(path), std::string::npos) << error;
  std::ofstream(path) << R"({"format": 99, "messages": []})";
  EXPECT_FALSE(load_conversation(path, error));
  EXPECT_NE(error.find("format 1"), std::string::npos) << error;
  std::ofstream(path) << R"({"format": 1, "messages": [{"role": "system", "text": "x"}]})";
  EXPECT_FALSE(load_conversation(path, error));
  EXPECT_NE(error.find("unknown role"), std::string::npos) << error;
}

ModelSettings settings(ModelApi api) {
  ModelSettings s;
  s.api = api;
  s.base_url = "http://127.0.0.1:1";
  s.model = "m";
  s.api_key = "sk-test";
  return s;
}

TEST(OpenAiResponses, TheConversationBecomesInputItems) {
  const WireRequest w = openai_request(settings(ModelApi::openai_responses), "be brief", sample(), browser_tools());
  EXPECT_EQ(w.path, "/responses");
  ASSERT_EQ(w.headers.size(), 1u);
  EXPECT_EQ(w.headers[0].first, "Authorization");
  EXPECT_EQ(w.headers[0].second, "Bearer sk-test");
  const json::object body = json::parse(w.body).as_object();
  EXPECT_EQ(body.at("instructions"), "be brief");
  EXPECT_EQ(body.at("stream"), false);
  EXPECT_EQ(body.at("tools").as_array().size(), 11u);
  EXPECT_EQ(body.at("tools").as_array()[0].at("type"), "function");
  EXPECT_FALSE(body.contains("max_output_tokens"));
  std::vector<std::string> kinds;
  for (const auto& item : body.at("input").as_array())
    kinds.push_back(std::string(item.at("type").as_string()) +
                    (item.as_object().contains("role") ? ":" + std::string(item.at("role").as_string()) : ""));
  EXPECT_EQ(kinds, (std::vector<std::string>{"message:user", "message:assistant", "function_call", "function_call",
                                             "function_call_output", "function_call_output", "function_call",
                                             "function_call_output", "message:user"}));
  const auto& input = body.at("input").as_array();
  EXPECT_EQ(input[0].at("content").as_array()[1].at("image_url"), "data:image/png;base64,iVBORw==");
  EXPECT_EQ(json::parse(input[3].at("arguments").as_string()), json::parse(R"({"ref":"e2"})"));
  EXPECT_EQ(input[5].at("call_id"), "c2");
  const json::object plain =
      json::parse(openai_request(settings(ModelApi::openai_responses), "s", sample(), {}).body).as_object();
  EXPECT_FALSE(plain.contains("tools"));
}

TEST(OpenAiResponses, AReplyGivesTextCallsAndUsage) {
  const json::object answer = json::parse(R"({"status": "completed", "output": [
      {"type": "reasoning", "summary": []},
      {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "one"}, {"type": "output_text", "text": "two"}]},
      {"type": "function_call", "call_id": "call_1", "name": "navigate", "arguments": "{\"url\": \"http://x/\"}"},
      {"type": "function_call", "call_id": "call_2", "name": "read", "arguments": "not json"}],
      "usage": {"input_tokens": 10, "output_tokens": 3, "input_tokens_details": {"cached_tokens": 4},
                "output_tokens_details": {"reasoning_tokens": 1}}})").as_object();
  const ModelReply r = openai_parse(answer);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.text, "one\n\ntwo");
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[0].id, "call_1");
  EXPECT_EQ(r.calls[0].arguments.at("url"), "http://x/");
  EXPECT_NE(r.calls[1].arguments_error.find("not json"), std::string::npos);
  EXPECT_EQ(json::serialize(r.usage.to_event()),
            R"({"inputTokens":10,"outputTokens":3,"cachedInputTokens":4,"reasoningTokens":1})");
  EXPECT_NE(openai_parse(json::parse(R"({"error": {"message": "bad key"}})").as_object()).error.find("bad key"),
            std::string::npos);
  EXPECT_FALSE(openai_parse(json::parse(R"({"content": []})").as_object()).error.empty());
}

TEST(AnthropicMessages, ToolResultsOfOneTurnShareAUserMessage) {
  ModelSettings s = settings(ModelApi::anthropic_messages);
  const WireRequest w = anthropic_request(s, "be brief", sample(), browser_tools());
  EXPECT_EQ(w.path, "/v1/messages");
  ASSERT_EQ(w.headers.size(), 2u);
  EXPECT_EQ(w.headers[0], (std::pair<std::string, std::string>{"anthropic-version", "2023-06-01"}));
  EXPECT_EQ(w.headers[1], (std::pair<std::string, std::string>{"x-api-key", "sk-test"}));
  const json::object body = json::parse(w.body).as_object();
  EXPECT_EQ(body.at("system"), "be brief");
  EXPECT_EQ(body.at("max_tokens"), 4096);
  EXPECT_TRUE(body.at("tools").as_array()[0].as_object().contains("input_schema"));
  const auto& m = body.at("messages").as_array();
  ASSERT_EQ(m.size(), 6u);  // user, assistant, user(2 results), assistant, user(1 result), user
  EXPECT_EQ(m[0].at("content").as_array()[0].at("type"), "image");
  EXPECT_EQ(m[1].at("content").as_array().size(), 3u);  // text + two tool_use
  EXPECT_EQ(m[2].at("content").as_array().size(), 2u);
  EXPECT_EQ(m[2].at("content").as_array()[1].at("is_error"), true);
  EXPECT_EQ(m[3].at("content").as_array().size(), 1u);  // no empty text block before the call
  EXPECT_EQ(m[3].at("content").as_array()[0].at("type"), "tool_use");
  EXPECT_EQ(m[5].at("content").as_array()[0].at("text"), "and now?");
}

TEST(AnthropicMessages, AReplyGivesTextCallsAndUsage) {
  const ModelReply r = anthropic_parse(json::parse(R"({"type": "message", "content": [
      {"type": "text", "text": "going"}, {"type": "tool_use", "id": "toolu_1", "name": "click", "input": {"ref": "e1"}}],
      "stop_reason": "tool_use", "usage": {"input_tokens": 7, "output_tokens": 2, "cache_read_input_tokens": 5}})")
                                           .as_object());
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.text, "going");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].id, "toolu_1");
  EXPECT_EQ(r.calls[0].arguments.at("ref"), "e1");
  EXPECT_EQ(json::serialize(r.usage.to_event()), R"({"inputTokens":7,"outputTokens":2,"cachedInputTokens":5})");
  EXPECT_NE(anthropic_parse(json::parse(R"({"type": "error", "error": {"message": "overloaded"}})").as_object())
                .error.find("overloaded"),
            std::string::npos);
}

TEST(ModelSettings, DefaultsAndLookups) {
  std::string error;
  const json::value section = json::parse(R"({"api": "anthropic-messages", "baseUrl": "http://127.0.0.1:5/", "apiKeyEnv": "MY_KEY"})");
  auto s = read_model_settings(section, {"PATH=/bin", "MY_KEY=secret"}, "agent-model", error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->api, ModelApi::anthropic_messages);
  EXPECT_EQ(s->base_url, "http://127.0.0.1:5");
  EXPECT_EQ(s->model, "agent-model");
  EXPECT_EQ(s->api_key, "secret");
  EXPECT_EQ(s->max_steps, 30);
  EXPECT_EQ(s->request_timeout.count(), 120000);
  EXPECT_FALSE(s->max_tokens_given);
  EXPECT_FALSE(read_model_settings(json::parse(R"({"api": "openai-responses", "baseUrl": "http://h/v1?x=1", "model": "m"})"),
                                   {}, "", error));
  EXPECT_NE(error.find("backendConfig.browser.model.baseUrl"), std::string::npos) << error;
  EXPECT_FALSE(read_model_settings(json::parse(R"({"api": "openai-responses", "baseUrl": "http://h", "model": "m", "apiKeyEnv": "A=B"})"),
                                   {}, "", error));
  EXPECT_NE(error.find("backendConfig.browser.model.apiKeyEnv"), std::string::npos) << error;
}

TEST(BrowserTools, ACallBecomesAValidatedStep) {
  std::string error;
  auto step = step_of(ToolCall{"c", "type", {{"ref", "e1"}, {"text", "hi"}, {"action", "navigate"}}, {}}, error);
  ASSERT_TRUE(step) << error;
  EXPECT_EQ(step->action, "type");  // the tool's name wins over an "action" argument
  EXPECT_FALSE(step_of(ToolCall{"c", "hover", {}, {}}, error));
  EXPECT_NE(error.find("no tool \"hover\""), std::string::npos) << error;
  EXPECT_FALSE(step_of(ToolCall{"c", "click", {{"selector", "#a"}, {"ref", "e1"}}, {}}, error));
  EXPECT_NE(error.find("exactly one"), std::string::npos) << error;
  EXPECT_FALSE(step_of(ToolCall{"c", "finish", {}, {}}, error));
  EXPECT_NE(error.find("summary"), std::string::npos) << error;
  EXPECT_FALSE(step_of(ToolCall{"c", "read", {}, "the arguments are not a JSON object: x"}, error));
  EXPECT_NE(error.find("not a JSON object"), std::string::npos) << error;
  for (const ToolSpec& t : browser_tools()) {
    EXPECT_EQ(t.schema.at("type"), "object") << t.name;
    EXPECT_FALSE(t.description.empty()) << t.name;
  }
}

}  // namespace
}  // namespace agentry::browser
