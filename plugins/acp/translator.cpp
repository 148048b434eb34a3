#include "translator.hpp"

#include <boost/json.hpp>

#include "agentry/plugin/events.h"
#include "agentry/plugin_common/json_fields.hpp"

namespace agentry::acp {

namespace json = boost::json;
using plugin_common::array_field;
using plugin_common::object_field;
using plugin_common::text_field;

namespace {

// A tool call's output: the text of its "content" blocks, and the paths of its diffs.
struct ToolContent {
  std::string text;
  json::array changes;
};

ToolContent read_content(const json::array* content) {
  ToolContent out;
  if (content == nullptr) return out;
  for (const json::value& item : *content) {
    const json::object* o = item.if_object();
    const std::string type = text_field(o, "type");
    if (type == "content") {
      const json::object* block = object_field(o, "content");
      if (text_field(block, "type") == "text") {
        if (!out.text.empty()) out.text.push_back('\n');
        out.text += text_field(block, "text");
      }
    } else if (type == "diff") {
      out.changes.push_back(json::object{{"path", text_field(o, "path")},
                                         {"kind", o && o->if_contains("oldText") && !o->at("oldText").is_null() ? "update"
                                                                                                              : "add"}});
    }
  }
  return out;
}

// The command line an execute tool runs: rawInput.command (a string or an argv array).
std::string command_of(const json::object* raw_input) {
  const json::value* c = raw_input ? raw_input->if_contains("command") : nullptr;
  if (c == nullptr) return {};
  if (c->is_string()) return std::string(c->get_string());
  std::string line;
  if (const json::array* parts = c->if_array())
    for (const json::value& part : *parts)
      if (part.is_string()) line += (line.empty() ? "" : " ") + std::string(part.get_string());
  return line;
}

}  // namespace

std::string Translator::tool_name(std::string_view acp_kind) {
  if (acp_kind == "execute") return "command";
  if (acp_kind == "edit" || acp_kind == "delete" || acp_kind == "move") return "file_change";
  return acp_kind.empty() ? std::string("other") : std::string(acp_kind);
}

std::vector<Event> Translator::update(const json::value& params) {
  std::vector<Event> out;
  const json::object* update = object_field(params.if_object(), "update");
  const std::string kind = text_field(update, "sessionUpdate");
  if (kind == "agent_message_chunk" || kind == "agent_thought_chunk") {
    const json::object* content = object_field(update, "content");
    if (text_field(content, "type") == "text") append_text(kind == "agent_thought_chunk", text_field(content, "text"), out);
    return out;
  }
  if (kind == "tool_call" || kind == "tool_call_update") {
    close_text(out);
    tool_event(*update, kind == "tool_call", out);
    return out;
  }
  if (kind == "plan") {
    close_text(out);
    json::array steps;
    if (const json::array* entries = array_field(update, "entries"))
      for (const json::value& entry : *entries)
        steps.push_back(json::object{{"step", text_field(entry.if_object(), "content")},
                                     {"status", text_field(entry.if_object(), "status")}});
    out.push_back(Event{AGENTRY_EVENT_PLAN, 0, json::object{{"steps", std::move(steps)}}});
    return out;
  }
  // user_message_chunk (a replay of our own prompt), available_commands_update,
  // current_mode_update and whatever later versions add say nothing the run needs.
  return out;
}

void Translator::append_text(bool thought, const std::string& text, std::vector<Event>& out) {
  if (text.empty()) return;
  if (text_open_ && open_is_thought_ != thought) close_text(out);
  if (!text_open_) {
    text_open_ = true;
    open_is_thought_ = thought;
    open_text_.clear();
    ++text_items_;
  }
  open_text_ += text;
  const std::string item = (thought ? "r" : "m") + std::to_string(text_items_);
  out.push_back(Event{static_cast<uint16_t>(thought ? AGENTRY_EVENT_REASONING_DELTA : AGENTRY_EVENT_MESSAGE_DELTA),
                      AGENTRY_EVENT_FLAG_EPHEMERAL, json::object{{"text", text}, {"itemId", item}}});
}

void Translator::close_text(std::vector<Event>& out) {
  if (!text_open_) return;
  text_open_ = false;
  const std::string item = (open_is_thought_ ? "r" : "m") + std::to_string(text_items_);
  if (open_is_thought_)
    out.push_back(Event{AGENTRY_EVENT_REASONING, 0, json::object{{"text", open_text_}, {"itemId", item}}});
  else
    out.push_back(Event{AGENTRY_EVENT_MESSAGE_COMPLETED, 0,
                        json::object{{"text", open_text_}, {"itemId", item}, {"role", "assistant"}}});
  open_text_.clear();
}

void Translator::tool_event(const json::object& update, bool is_new, std::vector<Event>& out) {
  const std::string id = text_field(&update, "toolCallId");
  if (id.empty()) return;
  auto found = tools_.find(id);
  if (found == tools_.end()) {
    if (!is_new && text_field(&update, "status").empty()) return;  // an update to a call that already ended
    const std::string name = tool_name(text_field(&update, "kind"));
    found = tools_.emplace(id, name).first;
    json::object started{{"toolCallId", id}, {"tool", name}};
    const json::object* raw_input = object_field(&update, "rawInput");
    if (const std::string title = text_field(&update, "title"); !title.empty()) started["title"] = title;
    if (name == "command") {
      std::string command = command_of(raw_input);
      started["command"] = command.empty() ? text_field(&update, "title") : command;
    }
    if (const json::array* locations = array_field(&update, "locations"); locations && !locations->empty())
      if (std::string path = text_field(locations->at(0).if_object(), "path"); !path.empty()) started["path"] = path;
    if (raw_input != nullptr) started["input"] = *raw_input;
    out.push_back(Event{AGENTRY_EVENT_TOOL_STARTED, 0, std::move(started)});
  }
  const std::string& name = found->second;
  const std::string status = text_field(&update, "status");
  if (status != "completed" && status != "failed") return;
  ToolContent content = read_content(array_field(&update, "content"));
  json::object completed{{"toolCallId", id}, {"tool", name}, {"status", status}};
  if (!content.text.empty()) completed["output"] = content.text;
  else if (const json::value* raw = update.if_contains("rawOutput"); raw != nullptr && !raw->is_null())
    completed["output"] = raw->is_string() ? std::string(raw->get_string()) : json::serialize(*raw);
  if (!content.changes.empty()) completed["changes"] = std::move(content.changes);
  out.push_back(Event{AGENTRY_EVENT_TOOL_COMPLETED, 0, std::move(completed)});
  tools_.erase(found);
}

std::vector<Event> Translator::end_turn(const char* open_tools_status) {
  std::vector<Event> out;
  close_text(out);
  for (const auto& [id, name] : tools_)
    out.push_back(Event{AGENTRY_EVENT_TOOL_COMPLETED, 0,
                        json::object{{"toolCallId", id}, {"tool", name}, {"status", open_tools_status},
                                     {"output", "the turn ended before the tool call did"}}});
  tools_.clear();
  return out;
}

Event Translator::approval(const std::string& approval_id, const json::value& params) {
  const json::object* call = object_field(params.if_object(), "toolCall");
  const std::string name = tool_name(text_field(call, "kind"));
  std::string summary = text_field(call, "title");
  if (name == "command")
    if (std::string command = command_of(object_field(call, "rawInput")); !command.empty()) summary = command;
  if (summary.empty()) summary = "the agent asks to use a tool";
  json::object details{{"toolCall", call ? json::value(*call) : json::value()}};
  if (const json::array* options = array_field(params.if_object(), "options")) details["options"] = *options;
  return Event{AGENTRY_EVENT_APPROVAL_REQUEST, 0,
               json::object{{"approvalId", approval_id}, {"kind", name}, {"summary", summary}, {"details", std::move(details)}}};
}

std::string Translator::choose_option(const json::value& params, bool approve) {
  const json::array* options = array_field(params.if_object(), "options");
  if (options == nullptr) return {};
  static constexpr const char* kAllow[] = {"allow_once", "allow_always"};
  static constexpr const char* kReject[] = {"reject_once", "reject_always"};
  for (const char* kind : approve ? kAllow : kReject)
    for (const json::value& option : *options)
      if (text_field(option.if_object(), "kind") == kind) return text_field(option.if_object(), "optionId");
  return {};
}

}  // namespace agentry::acp
