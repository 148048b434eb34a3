// parse_jsonrpc_request(): every WebSocket text frame a client sends goes through it.
// Whatever the bytes, the answer is a request or an error text that is itself a valid
// JSON-RPC 2.0 error response, and the answers built from a parsed id are valid JSON.

#include "api/jsonrpc.hpp"

#include "fuzz_check.hpp"

#include <boost/json/parse.hpp>

#include <cmath>

namespace {

namespace json = boost::json;

json::value parsed(const std::string& text) {
  boost::system::error_code ec;
  auto value = json::parse(text, ec);
  FUZZ_CHECK(!ec, "what agentry sends back is JSON");
  return value;
}

void check_error_answer(const std::string& text) {
  const auto value = parsed(text);
  FUZZ_CHECK(value.is_object(), "an error answer is an object");
  const auto& answer = value.as_object();
  FUZZ_CHECK(answer.contains("id"), "an error answer carries the id (or null)");
  const auto* version = answer.if_contains("jsonrpc");
  FUZZ_CHECK(version && version->is_string() && version->as_string() == "2.0", "answers are JSON-RPC 2.0");
  const auto* error = answer.if_contains("error");
  FUZZ_CHECK(error && error->is_object(), "an error answer has an error object");
  const auto* code = error->as_object().if_contains("code");
  FUZZ_CHECK(code && code->is_int64(), "an error has an integer code");
  const auto c = code->as_int64();
  // Params the API cannot take in (a NUL, a non-finite number) are refused like any
  // invalid field: -32003 with the HTTP envelope's INVALID_REQUEST in data.
  const auto* data = error->as_object().if_contains("data");
  const bool invalid_field = c == agentry::api::jsonrpc_control_error && data && data->is_object() &&
                             data->as_object().if_contains("code") &&
                             data->as_object().at("code") == "INVALID_REQUEST";
  FUZZ_CHECK(c == agentry::api::jsonrpc_parse_error || c == agentry::api::jsonrpc_invalid_request || invalid_field,
             "parsing fails only with parse error, invalid request or an invalid field");
}

/// Boost.JSON (1.81) reads a number beyond double's range, such as 1e400, as an
/// infinity and writes it back as `Infinity`, which is not JSON.
bool has_non_finite(const json::value& value) {
  switch (value.kind()) {
    case json::kind::double_: return !std::isfinite(value.get_double());
    case json::kind::array:
      for (const auto& item : value.get_array())
        if (has_non_finite(item)) return true;
      return false;
    case json::kind::object:
      for (const auto& entry : value.get_object())
        if (has_non_finite(entry.value())) return true;
      return false;
    default: return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agentry;
  auto outcome = api::parse_jsonrpc_request(fuzz::as_text(data, size));
  if (auto* answer = std::get_if<std::string>(&outcome)) {
    check_error_answer(*answer);
    return 0;
  }
  const auto& request = std::get<api::JsonRpcRequest>(outcome);
  FUZZ_CHECK(!request.method.empty(), "a request names its method");
  const json::value id = request.id.value_or(nullptr);
  FUZZ_CHECK(id.is_string() || id.is_int64() || id.is_uint64() || id.is_null(), "ids are strings, integers or null");
  // A request agentry cannot echo as JSON must be refused here, not answered later with
  // `Infinity` in a result, an event or a stored row (finding "nonfinite-json").
  if (has_non_finite(request.params)) {
    FUZZ_CHECK(fuzz::tolerated("nonfinite-json"), "numbers JSON cannot represent are refused");
    return 0;
  }
  // The daemon answers with these; whatever the client sent, they must stay valid JSON.
  (void)parsed(api::jsonrpc_result(id, request.params));
  check_error_answer(api::jsonrpc_error(id, api::jsonrpc_invalid_request, "unknown method " + request.method));
  return 0;
}
