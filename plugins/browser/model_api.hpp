// What the model loop and the ask extension need from a model API, whichever carries it:
// the tools offered, one reply (its text, its tool calls, its token usage), and the shape
// of the two adapters (openai_responses.hpp, anthropic_messages.hpp).
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "browser/conversation.hpp"
#include "browser/model_settings.hpp"

namespace agentry::browser {

struct ToolSpec {
  std::string name;
  std::string description;
  boost::json::object schema;  // JSON Schema of the arguments object
};

struct Usage {
  std::optional<int64_t> input, output, cached_input, reasoning;
  bool empty() const { return !input && !output && !cached_input && !reasoning; }
  // The USAGE event's payload (and the ask answer's "usage").
  boost::json::object to_event() const;
};

struct ModelReply {
  std::string text;             // the assistant's text, parts joined by blank lines
  std::vector<ToolCall> calls;  // in the order the model made them
  Usage usage;
  std::string error;            // set when there is no usable reply; says why
  bool cancelled = false;       // the call was abandoned (interrupt, destroy)
};

// One model call as the adapters describe it.
struct WireRequest {
  std::string path;  // appended to baseUrl
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// The request for `conversation` with `system` as the instructions and `tools` offered (none:
// a plain question); the parse functions read a successful answer's JSON object.
WireRequest openai_request(const ModelSettings& settings, const std::string& system, const Conversation& conversation,
                           const std::vector<ToolSpec>& tools);
ModelReply openai_parse(const boost::json::object& answer);

WireRequest anthropic_request(const ModelSettings& settings, const std::string& system,
                              const Conversation& conversation, const std::vector<ToolSpec>& tools);
ModelReply anthropic_parse(const boost::json::object& answer);

}  // namespace agentry::browser
