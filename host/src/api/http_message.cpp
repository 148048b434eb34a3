#include "api/http_message.hpp"

#include "core/utf8.hpp"

#include <boost/json/serialize.hpp>

namespace agentry::api {
namespace json = boost::json;
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

const std::string* HttpRequest::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? nullptr : &it->second;
}

const std::string* HttpRequest::query_param(const std::string& name) const {
  auto it = query.find(name);
  return it == query.end() ? nullptr : &it->second;
}

HttpResponse json_response(int status, const json::value& body) {
  HttpResponse r;
  r.status = status;
  r.body = json::serialize(body);
  return r;
}

HttpResponse error_response(const core::Error& error) {
  json::object envelope{{"error", {{"code", core::error_code_name(error.code)},
                                   {"message", error.message},
                                   {"details", error.details}}}};
  return json_response(core::http_status(error.code), envelope);
}

HttpResponse error_response(core::ErrorCode code, std::string message, json::object details) {
  return error_response(core::make_error(code, std::move(message), std::move(details)));
}

std::string percent_decode(std::string_view text, bool plus_is_space, bool& ok) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) {
        ok = false;
        return {};
      }
      int hi = hex_value(text[i + 1]);
      int lo = hex_value(text[i + 2]);
      // %00 would cut a value short where it reaches C strings.
      if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
        ok = false;
        return {};
      }
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += c;
    }
  }
  // Decoded text becomes JSON strings, which must be UTF-8.
  if (!core::is_valid_utf8(out)) {
    ok = false;
    return {};
  }
  return out;
}

bool parse_target(const std::string& target, std::string& path, std::map<std::string, std::string>& query) {
  bool ok = true;
  auto qmark = target.find('?');
  // The path stays encoded here: the router decodes each segment, so "%2F" inside a
  // segment (a direct definition path) does not split it.
  path = target.substr(0, qmark);
  if (qmark == std::string::npos) return true;
  std::string_view rest(target);
  rest.remove_prefix(qmark + 1);
  while (!rest.empty()) {
    auto amp = rest.find('&');
    auto pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    if (pair.empty()) continue;
    auto eq = pair.find('=');
    auto key = percent_decode(pair.substr(0, eq), true, ok);
    auto value = eq == std::string_view::npos ? std::string() : percent_decode(pair.substr(eq + 1), true, ok);
    if (!ok) return false;
    query[key] = value;
  }
  return ok;
}

}  // namespace agentry::api
