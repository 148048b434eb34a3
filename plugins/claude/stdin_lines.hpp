// The lines agentry writes to `claude -p --input-format stream-json`: one JSON object
// per line, each ending in '\n'. Shapes verified against Claude Code 2.1.332.
#pragma once

#include <string>
#include <string_view>

#include <boost/json/value.hpp>

namespace agentry::claude {

// {"type":"control_request","request_id":id,"request":{"subtype":"initialize","hooks":null}}
std::string initialize_request(std::string_view request_id);

// {"type":"control_request","request_id":id,"request":{"subtype":"interrupt"}}
std::string interrupt_request(std::string_view request_id);

// A user turn: {"type":"user","message":{"role":"user","content":text},...}. Claude queues
// it as the next turn when one is running.
std::string user_message(std::string_view text);

// Answers to a can_use_tool request: allow with the (unchanged) input, or deny with a
// message the model reads as the tool's result.
std::string allow_tool(std::string_view request_id, const boost::json::value& input);
std::string deny_tool(std::string_view request_id, std::string_view message);

// An error answer, for control requests agentry does not handle (hook callbacks, MCP...).
std::string control_error(std::string_view request_id, std::string_view message);

}  // namespace agentry::claude
