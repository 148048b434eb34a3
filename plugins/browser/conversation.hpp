// The model conversation of a run, independent of the API that carries it: user prompts,
// assistant replies with their tool calls, and tool results. The API adapters translate it
// into each wire format; the model loop keeps it in the run's profile directory so a
// resumed attempt continues where the last one stopped.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace agentry::browser {

struct ToolCall {
  std::string id;                // the API's call id; a tool result names it
  std::string name;
  boost::json::object arguments; // parsed; {} when the model sent none
  std::string arguments_error;   // the model's arguments were not a JSON object: why
};

struct Image {
  std::string mime;  // image/jpeg, image/png
  std::string data;  // base64
};

struct Message {
  enum class Role { user, assistant, tool };
  Role role = Role::user;
  std::string text;             // user: the prompt; assistant: its text; tool: the result
  std::vector<ToolCall> calls;  // assistant only
  std::string call_id;          // tool only: the call it answers
  bool is_error = false;        // tool only: the action failed
  std::optional<Image> image;   // user only: a picture sent with the text
};

using Conversation = std::vector<Message>;

boost::json::value to_json(const Conversation& conversation);
// nullopt (with `error`) when `value` is not a conversation this plugin wrote.
std::optional<Conversation> conversation_from_json(const boost::json::value& value, std::string& error);

// <profile dir>/conversation.json, written to a temporary file and renamed over the old one,
// so a crash leaves the last complete conversation. Returns an error text, empty on success.
std::string save_conversation(const std::string& path, const Conversation& conversation);
// The saved conversation; an empty one when there is no file; nullopt (with `error`) when
// the file cannot be read or parsed.
std::optional<Conversation> load_conversation(const std::string& path, std::string& error);

}  // namespace agentry::browser
