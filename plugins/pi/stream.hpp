// pi's RPC-mode events (one JSON object per line, docs/rpc.md of pi-coding-agent) as
// agentry events (pure: no I/O). docs/backends/pi.md has the mapping.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "agentry/plugin_common/runtime/event_sink.hpp"

namespace agentry::pi {

using plugin_common::runtime::Event;

class PiStream {
 public:
  // One event's agentry events (a response to a command says nothing here).
  std::vector<Event> event(const boost::json::object& line);
  // The prompt is over (agent_end): what is still open is closed.
  std::vector<Event> end(const char* open_tools_status);

  // From the last assistant message: "stop", "toolUse", "aborted", "error", "length".
  const std::string& stop_reason() const noexcept { return stop_reason_; }
  const std::string& error_message() const noexcept { return error_message_; }

 private:
  std::string item(const char* kind, int64_t index) const;

  int messages_ = 0;  // assistant messages so far: the item ids of their blocks
  std::map<int64_t, std::string> text_, thinking_;  // open blocks by contentIndex
  std::map<std::string, std::string> tools_;        // running tool calls: id -> tool
  std::string stop_reason_, error_message_;
};

// bash -> command, edit/write -> file_change, else pi's tool name.
std::string tool_name(std::string_view pi_tool);

}  // namespace agentry::pi
