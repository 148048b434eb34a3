// cursor-agent's stream-json output (one JSON object per line) as agentry events, one turn
// at a time (pure: no I/O). docs/backends/cursor.md has the mapping.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentry/plugin_common/runtime/event_sink.hpp"

namespace agentry::cursor {

using plugin_common::runtime::Event;

class TurnStream {
 public:
  // One stdout line's events.
  std::vector<Event> line(std::string_view text);
  // The process ended: what is still open is closed.
  std::vector<Event> end();

  const std::string& chat_id() const noexcept { return chat_id_; }  // from system/init
  bool has_result() const noexcept { return has_result_; }
  bool result_is_error() const noexcept { return result_error_; }
  const std::string& result_text() const noexcept { return result_text_; }

 private:
  void close_message(std::vector<Event>& out);
  void close_thinking(std::vector<Event>& out);
  void tool_started(const boost::json::object& line, std::vector<Event>& out);
  void tool_completed(const boost::json::object& line, std::vector<Event>& out);

  std::string chat_id_;
  std::string message_, thinking_;  // the segment streaming now
  int segments_ = 0;
  bool said_anything_ = false;
  std::map<std::string, std::string> open_tools_;  // call_id -> tool name
  bool has_result_ = false;
  bool result_error_ = false;
  std::string result_text_;
};

}  // namespace agentry::cursor
