// ACP's session/update notifications and permission requests as agentry events (pure: no
// I/O, no threads). Text arrives as chunks without ids, so a message is the run of
// consecutive chunks of one kind: each chunk streams as an ephemeral delta, and the whole
// text is completed when something else happens or the turn ends.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "agentry/plugin_common/runtime/event_sink.hpp"

namespace agentry::acp {

using plugin_common::runtime::Event;

class Translator {
 public:
  // One session/update's params ({sessionId, update: {sessionUpdate, ...}}).
  std::vector<Event> update(const boost::json::value& params);
  // The turn is over: the text still open is completed, tool calls still open end as
  // `open_tools_status` ("failed" normally, "declined" after a cancel).
  std::vector<Event> end_turn(const char* open_tools_status);

  // An approval request for session/request_permission's params, under `approval_id`.
  static Event approval(const std::string& approval_id, const boost::json::value& params);
  // The optionId that answers a permission request: the first option of the wanted kind
  // (allow_once before allow_always for an approval; reject_once before reject_always for
  // a denial). Empty when the agent offered none.
  static std::string choose_option(const boost::json::value& params, bool approve);

  // "command" for execute, "file_change" for edit/delete/move, else ACP's kind ("read", ...).
  static std::string tool_name(std::string_view acp_kind);

 private:
  void close_text(std::vector<Event>& out);
  void append_text(bool thought, const std::string& text, std::vector<Event>& out);
  void tool_event(const boost::json::object& update, bool is_new, std::vector<Event>& out);

  std::string open_text_;
  bool open_is_thought_ = false;
  bool text_open_ = false;
  int text_items_ = 0;
  std::map<std::string, std::string> tools_;  // started, not yet ended: toolCallId -> tool name
};

}  // namespace agentry::acp
