// The Anthropic Messages API (POST {baseUrl}/v1/messages, stream false): the conversation as
// alternating user/assistant messages, tool calls as tool_use blocks and their results as
// tool_result blocks in the user message that follows.
#include <boost/json/serialize.hpp>

#include "agentry/plugin_common/json_fields.hpp"
#include "browser/model_api.hpp"

namespace agentry::browser {
namespace json = boost::json;
using plugin_common::text_field;
using plugin_common::int_field;
using plugin_common::object_field;
using plugin_common::array_field;

namespace {

constexpr const char* kApiVersion = "2023-06-01";

// The API refuses empty text blocks; a message with nothing to say still needs one.
std::string non_empty(const std::string& text, const char* placeholder) { return text.empty() ? placeholder : text; }

json::array messages_of(const Conversation& conversation) {
  json::array messages;
  for (std::size_t i = 0; i < conversation.size(); ++i) {
    const Message& m = conversation[i];
    if (m.role == Message::Role::user) {
      json::array content;
      if (m.image)
        content.push_back({{"type", "image"},
                           {"source", {{"type", "base64"}, {"media_type", m.image->mime}, {"data", m.image->data}}}});
      content.push_back({{"type", "text"}, {"text", non_empty(m.text, "(empty)")}});
      messages.push_back({{"role", "user"}, {"content", std::move(content)}});
    } else if (m.role == Message::Role::assistant) {
      json::array content;
      if (!m.text.empty() || m.calls.empty()) content.push_back({{"type", "text"}, {"text", non_empty(m.text, "(no reply)")}});
      for (const ToolCall& c : m.calls)
        content.push_back({{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", c.arguments}});
      messages.push_back({{"role", "assistant"}, {"content", std::move(content)}});
    } else {
      // Every tool result of one assistant turn goes into a single user message.
      json::array content;
      for (; i < conversation.size() && conversation[i].role == Message::Role::tool; ++i) {
        const Message& r = conversation[i];
        json::object block{{"type", "tool_result"}, {"tool_use_id", r.call_id}, {"content", non_empty(r.text, "(no output)")}};
        if (r.is_error) block["is_error"] = true;
        content.push_back(std::move(block));
      }
      --i;
      messages.push_back({{"role", "user"}, {"content", std::move(content)}});
    }
  }
  return messages;
}

}  // namespace

WireRequest anthropic_request(const ModelSettings& settings, const std::string& system,
                              const Conversation& conversation, const std::vector<ToolSpec>& tools) {
  json::object body{{"model", settings.model},
                    {"max_tokens", settings.max_tokens},
                    {"system", system},
                    {"messages", messages_of(conversation)},
                    {"stream", false}};
  if (!tools.empty()) {
    json::array specs;
    for (const ToolSpec& t : tools)
      specs.push_back({{"name", t.name}, {"description", t.description}, {"input_schema", t.schema}});
    body["tools"] = std::move(specs);
  }
  WireRequest out{"/v1/messages", {{"anthropic-version", kApiVersion}}, json::serialize(body)};
  if (!settings.api_key.empty()) out.headers.emplace_back("x-api-key", settings.api_key);
  return out;
}

ModelReply anthropic_parse(const json::object& root) {
  ModelReply reply;
  const json::object* o = &root;
  if (text_field(o, "type") == "error") {
    reply.error = "the API reported an error: " + text_field(object_field(o, "error"), "message");
    return reply;
  }
  const json::array* content = array_field(o, "content");
  if (!content) {
    reply.error = "the answer has no \"content\" array (is baseUrl an Anthropic Messages endpoint?)";
    return reply;
  }
  for (const json::value& block : *content) {
    const json::object* b = block.if_object();
    const std::string type = text_field(b, "type");
    if (type == "text") {
      const std::string text = text_field(b, "text");
      if (!text.empty()) reply.text += (reply.text.empty() ? "" : "\n\n") + text;
    } else if (type == "tool_use") {
      ToolCall call{text_field(b, "id"), text_field(b, "name"), {}, {}};
      if (const json::object* input = object_field(b, "input")) call.arguments = *input;
      else call.arguments_error = "the input is not a JSON object";
      reply.calls.push_back(std::move(call));
    }
  }
  if (const json::object* usage = object_field(o, "usage")) {
    reply.usage.input = int_field(usage, "input_tokens");
    reply.usage.output = int_field(usage, "output_tokens");
    reply.usage.cached_input = int_field(usage, "cache_read_input_tokens");
  }
  return reply;
}

}  // namespace agentry::browser
