// The OpenAI Responses API (POST {baseUrl}/responses, stream false): the conversation as
// input items (messages, function_call, function_call_output), the tools as functions.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "agentry/plugin_common/json_fields.hpp"
#include "browser/model_api.hpp"

namespace agentry::browser {
namespace json = boost::json;
using plugin_common::text_field;
using plugin_common::int_field;
using plugin_common::object_field;

namespace {

json::array input_items(const Conversation& conversation) {
  json::array items;
  for (const Message& m : conversation) {
    switch (m.role) {
      case Message::Role::user: {
        json::array content{json::object{{"type", "input_text"}, {"text", m.text}}};
        if (m.image)
          content.push_back({{"type", "input_image"}, {"image_url", "data:" + m.image->mime + ";base64," + m.image->data}});
        items.push_back({{"type", "message"}, {"role", "user"}, {"content", std::move(content)}});
        break;
      }
      case Message::Role::assistant:
        if (!m.text.empty())
          items.push_back({{"type", "message"},
                           {"role", "assistant"},
                           {"content", json::array{json::object{{"type", "output_text"}, {"text", m.text}}}}});
        for (const ToolCall& c : m.calls)
          items.push_back({{"type", "function_call"},
                           {"call_id", c.id},
                           {"name", c.name},
                           {"arguments", json::serialize(c.arguments)}});
        break;
      case Message::Role::tool:
        items.push_back({{"type", "function_call_output"}, {"call_id", m.call_id}, {"output", m.text}});
        break;
    }
  }
  return items;
}

}  // namespace

WireRequest openai_request(const ModelSettings& settings, const std::string& system, const Conversation& conversation,
                           const std::vector<ToolSpec>& tools) {
  json::object body{{"model", settings.model},
                    {"instructions", system},
                    {"input", input_items(conversation)},
                    {"stream", false},
                    {"store", false}};
  if (!tools.empty()) {
    json::array specs;
    for (const ToolSpec& t : tools)
      specs.push_back({{"type", "function"},
                       {"name", t.name},
                       {"description", t.description},
                       {"parameters", t.schema},
                       {"strict", false}});
    body["tools"] = std::move(specs);
    body["tool_choice"] = "auto";
    body["parallel_tool_calls"] = false;  // actions change the page: one at a time
  }
  if (settings.max_tokens_given) body["max_output_tokens"] = settings.max_tokens;
  WireRequest out{"/responses", {}, json::serialize(body)};
  if (!settings.api_key.empty()) out.headers.emplace_back("Authorization", "Bearer " + settings.api_key);
  return out;
}

ModelReply openai_parse(const json::object& root) {
  ModelReply reply;
  const json::object* o = &root;
  if (const json::object* err = object_field(o, "error")) {
    reply.error = "the API reported an error: " + text_field(err, "message");
    return reply;
  }
  const json::value* output = o->if_contains("output");
  if (!output || !output->is_array()) {
    reply.error = "the answer has no \"output\" array (is baseUrl an OpenAI Responses endpoint?)";
    return reply;
  }
  for (const json::value& item : output->get_array()) {
    const json::object* it = item.if_object();
    if (!it) continue;
    const std::string type = text_field(it, "type");
    if (type == "message") {
      const json::value* content = it->if_contains("content");
      if (!content || !content->is_array()) continue;
      for (const json::value& part : content->get_array()) {
        const json::object* p = part.if_object();
        if (!p) continue;
        const std::string kind = text_field(p, "type");
        const std::string text = text_field(p, kind == "refusal" ? "refusal" : "text");
        if ((kind == "output_text" || kind == "refusal") && !text.empty())
          reply.text += (reply.text.empty() ? "" : "\n\n") + text;
      }
    } else if (type == "function_call") {
      ToolCall call{text_field(it, "call_id"), text_field(it, "name"), {}, {}};
      if (call.id.empty()) call.id = text_field(it, "id");
      const std::string arguments = text_field(it, "arguments");
      json::error_code aec;
      const json::value args = json::parse(arguments.empty() ? std::string("{}") : arguments, aec);
      if (aec || !args.is_object())
        call.arguments_error = "the arguments are not a JSON object: " + arguments.substr(0, 200);
      else
        call.arguments = args.get_object();
      reply.calls.push_back(std::move(call));
    }
  }
  if (const json::object* usage = object_field(o, "usage")) {
    reply.usage.input = int_field(usage, "input_tokens");
    reply.usage.output = int_field(usage, "output_tokens");
    reply.usage.cached_input = int_field(object_field(usage, "input_tokens_details"), "cached_tokens");
    reply.usage.reasoning = int_field(object_field(usage, "output_tokens_details"), "reasoning_tokens");
  }
  if (text_field(o, "status") == "failed" && reply.text.empty() && reply.calls.empty())
    reply.error = "the response failed";
  return reply;
}

}  // namespace agentry::browser
