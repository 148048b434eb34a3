#include "stdin_lines.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace agentry::claude {

namespace json = boost::json;

namespace {

std::string line(const json::object& message) { return json::serialize(message) + "\n"; }

std::string control_request(std::string_view request_id, json::object request) {
  return line({{"type", "control_request"}, {"request_id", request_id}, {"request", std::move(request)}});
}

std::string control_success(std::string_view request_id, json::object response) {
  return line({{"type", "control_response"},
               {"response", {{"subtype", "success"}, {"request_id", request_id}, {"response", std::move(response)}}}});
}

}  // namespace

std::string initialize_request(std::string_view request_id) {
  return control_request(request_id, {{"subtype", "initialize"}, {"hooks", nullptr}});
}

std::string interrupt_request(std::string_view request_id) {
  return control_request(request_id, {{"subtype", "interrupt"}});
}

std::string user_message(std::string_view text) {
  return line({{"type", "user"},
               {"message", {{"role", "user"}, {"content", text}}},
               {"parent_tool_use_id", nullptr},
               {"session_id", ""}});
}

std::string allow_tool(std::string_view request_id, const json::value& input) {
  return control_success(request_id, {{"behavior", "allow"}, {"updatedInput", input}});
}

std::string deny_tool(std::string_view request_id, std::string_view message) {
  return control_success(request_id, {{"behavior", "deny"}, {"message", message}});
}

std::string control_error(std::string_view request_id, std::string_view message) {
  return line({{"type", "control_response"},
               {"response", {{"subtype", "error"}, {"request_id", request_id}, {"error", message}}}});
}

}  // namespace agentry::claude
