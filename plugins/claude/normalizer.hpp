// Claude Code's stream-json stdout, one line at a time, turned into agentry events plus
// the protocol facts the attempt acts on (session id, control requests, turn results).
// Pure: no I/O, no threads; tested against transcripts recorded from the real binary.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "events.hpp"

namespace agentry::claude {

// {"type":"control_request"} from Claude: it waits for our control_response.
struct ControlRequest {
  std::string request_id;
  std::string subtype;      // "can_use_tool", "hook_callback", "mcp_message", ...
  std::string tool_name;    // can_use_tool only
  boost::json::value input; // can_use_tool only: the tool's input
  std::string tool_use_id;  // can_use_tool only
};

// The `result` line that ends every turn.
struct TurnResult {
  bool is_error = false;        // the flag to trust: API errors say subtype "success"
  std::string subtype;          // "success", "error_during_execution", "error_max_turns", ...
  std::string terminal_reason;  // "completed", "api_error", "aborted_streaming", ...
  std::string message;          // `result` text, or the `errors` list, for an error
};

struct Parsed {
  std::vector<Event> events;
  std::optional<std::string> session_id;          // system/init
  std::optional<ControlRequest> control_request;  // must be answered
  std::optional<std::string> cancelled_request;   // control_cancel_request: Claude gave up waiting
  std::optional<TurnResult> result;               // the turn is over
};

class Normalizer {
 public:
  Parsed on_line(std::string_view line);

 private:
  void on_system(const boost::json::object& line, Parsed& out);
  void on_stream_event(const boost::json::object& line, Parsed& out);
  void on_assistant(const boost::json::object& line, Parsed& out);
  void on_user(const boost::json::object& line, Parsed& out);
  void on_result(const boost::json::object& line, Parsed& out);
  void on_control_request(const boost::json::object& line, Parsed& out);
  void on_control_response(const boost::json::object& line, Parsed& out);
  // A NOTICE quoting the line, at most kUnknownNoticesPerKind per kind, so a new chatty
  // line type cannot flood the timeline.
  void unknown(std::string kind, std::string_view line, Parsed& out);

  struct ToolCall {
    std::string tool;  // agentry's name: "command", "file_change", or Claude's tool name
    std::string name;  // Claude's tool name
  };
  std::map<std::string, ToolCall> tool_calls_;          // by tool_use id
  std::map<std::string, int64_t> open_block_;           // api message id -> last content_block_start index
  std::map<std::string, int> unknown_counts_;  // NOTICEs per unknown kind, capped
};

// agentry's tool kind for a Claude tool name: "command" for Bash, "file_change" for the
// editing tools, else the name itself.
std::string tool_kind(std::string_view claude_tool);

// One line a person reads before approving: the command, the file, or the tool and its input.
std::string tool_summary(std::string_view claude_tool, const boost::json::value& input);

}  // namespace agentry::claude
