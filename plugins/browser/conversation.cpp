#include "browser/conversation.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "agentry/plugin_common/json_fields.hpp"

namespace agentry::browser {
namespace json = boost::json;
using plugin_common::text_field;

namespace {

constexpr int kFormat = 1;  // bumped when the stored shape changes incompatibly

const char* role_name(Message::Role r) {
  switch (r) {
    case Message::Role::user: return "user";
    case Message::Role::assistant: return "assistant";
    case Message::Role::tool: return "tool";
  }
  return "user";
}

}  // namespace

json::value to_json(const Conversation& conversation) {
  json::array messages;
  for (const Message& m : conversation) {
    json::object o{{"role", role_name(m.role)}, {"text", m.text}};
    if (m.role == Message::Role::assistant && !m.calls.empty()) {
      json::array calls;
      for (const ToolCall& c : m.calls) {
        json::object call{{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}};
        if (!c.arguments_error.empty()) call["argumentsError"] = c.arguments_error;
        calls.push_back(std::move(call));
      }
      o["calls"] = std::move(calls);
    }
    if (m.role == Message::Role::tool) {
      o["callId"] = m.call_id;
      if (m.is_error) o["isError"] = true;
    }
    if (m.image) o["image"] = {{"mime", m.image->mime}, {"data", m.image->data}};
    messages.push_back(std::move(o));
  }
  return json::object{{"format", kFormat}, {"messages", std::move(messages)}};
}

std::optional<Conversation> conversation_from_json(const json::value& value, std::string& error) {
  const json::object* root = value.if_object();
  const json::value* format = root ? root->if_contains("format") : nullptr;
  const json::value* messages = root ? root->if_contains("messages") : nullptr;
  if (!format || !format->is_int64() || format->get_int64() != kFormat || !messages || !messages->is_array()) {
    error = "not a conversation of format " + std::to_string(kFormat);
    return std::nullopt;
  }
  Conversation out;
  for (const json::value& v : messages->get_array()) {
    const json::object* o = v.if_object();
    if (!o) {
      error = "message " + std::to_string(out.size() + 1) + " is not an object";
      return std::nullopt;
    }
    Message m;
    const std::string role = text_field(*o, "role");
    if (role == "user") m.role = Message::Role::user;
    else if (role == "assistant") m.role = Message::Role::assistant;
    else if (role == "tool") m.role = Message::Role::tool;
    else {
      error = "message " + std::to_string(out.size() + 1) + " has an unknown role \"" + role + "\"";
      return std::nullopt;
    }
    m.text = text_field(*o, "text");
    if (const json::value* calls = o->if_contains("calls"); calls && calls->is_array())
      for (const json::value& c : calls->get_array()) {
        if (!c.is_object()) continue;
        ToolCall call{text_field(c.get_object(), "id"), text_field(c.get_object(), "name"), {},
                      text_field(c.get_object(), "argumentsError")};
        if (const json::value* a = c.get_object().if_contains("arguments"); a && a->is_object())
          call.arguments = a->get_object();
        m.calls.push_back(std::move(call));
      }
    m.call_id = text_field(*o, "callId");
    if (const json::value* e = o->if_contains("isError"); e && e->is_bool()) m.is_error = e->get_bool();
    if (const json::value* img = o->if_contains("image"); img && img->is_object())
      m.image = Image{text_field(img->get_object(), "mime"), text_field(img->get_object(), "data")};
    out.push_back(std::move(m));
  }
  return out;
}

std::string save_conversation(const std::string& path, const Conversation& conversation) {
  const std::string text = json::serialize(to_json(conversation));
  const std::string temp = path + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return "cannot write " + temp + ": " + std::strerror(errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      return "cannot write " + temp + ": " + why;
    }
    done += static_cast<std::size_t>(n);
  }
  // Durable before the rename, so the name never points at a half-written file.
  if (::fsync(fd) != 0 || ::close(fd) != 0) return "cannot write " + temp + ": " + std::strerror(errno);
  if (::rename(temp.c_str(), path.c_str()) != 0) return "cannot replace " + path + ": " + std::strerror(errno);
  return {};
}

std::optional<Conversation> load_conversation(const std::string& path, std::string& error) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Conversation{};
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read " + path;
    return std::nullopt;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  json::error_code jec;
  const json::value value = json::parse(text, jec);
  if (jec) {
    error = path + " is not JSON: " + jec.message();
    return std::nullopt;
  }
  auto conversation = conversation_from_json(value, error);
  if (!conversation) error = path + ": " + error;
  return conversation;
}

}  // namespace agentry::browser
