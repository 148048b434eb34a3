#include "api/json_body.hpp"

#include <boost/json/parse.hpp>

#include <cmath>

namespace agentry::api {
namespace json = boost::json;
using core::ErrorCode;

core::Result<JsonBody> JsonBody::parse(const std::string& text, bool empty_is_object) {
  if (text.empty()) {
    if (empty_is_object) return JsonBody(json::object{});
    return core::fail(ErrorCode::invalid_request, "request body is empty; expected a JSON object");
  }
  boost::system::error_code ec;
  auto value = json::parse(text, ec);
  if (ec)
    return core::fail(ErrorCode::invalid_request, "request body is not valid JSON: " + ec.message(),
                      {{"reason", "malformed_json"}});
  if (!value.is_object())
    return core::fail(ErrorCode::invalid_request, "request body must be a JSON object", {{"reason", "not_an_object"}});
  if (auto problem = first_unstorable(value)) {
    auto error = unstorable_error(*problem);
    return core::fail(error.code, std::move(error.message), std::move(error.details));
  }
  return JsonBody(std::move(value.as_object()));
}

std::optional<UnstorableValue> first_unstorable(const json::value& value, const std::string& path) {
  auto has_nul = [](json::string_view s) { return s.find('\0') != json::string_view::npos; };
  const std::string here = path.empty() ? std::string("(value)") : path;
  switch (value.kind()) {
    case json::kind::string:
      if (has_nul(value.get_string())) return UnstorableValue{here, "nul_character"};
      return std::nullopt;
    case json::kind::double_:
      if (!std::isfinite(value.get_double())) return UnstorableValue{here, "non_finite_number"};
      return std::nullopt;
    case json::kind::array: {
      const auto& array = value.get_array();
      for (std::size_t i = 0; i < array.size(); ++i)
        if (auto found = first_unstorable(array[i], path + "[" + std::to_string(i) + "]")) return found;
      return std::nullopt;
    }
    case json::kind::object:
      for (const auto& [key, item] : value.get_object()) {
        const std::string child = path.empty() ? std::string(key) : path + "." + std::string(key);
        if (has_nul(key)) return UnstorableValue{child, "nul_character"};
        if (auto found = first_unstorable(item, child)) return found;
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

core::Error unstorable_error(const UnstorableValue& problem) {
  const std::string what = problem.reason == "nul_character" ? "contains a NUL character"
                                                             : "is a number too large to store (over 1.8e308)";
  return core::make_error(ErrorCode::invalid_request, "field '" + problem.field + "' " + what,
                          {{"field", problem.field}, {"reason", problem.reason}});
}

JsonBody::JsonBody(json::object object, std::string path) : object_(std::move(object)), path_(std::move(path)) {}

std::string JsonBody::field(std::string_view key) const { return path_ + std::string(key); }

core::Failure JsonBody::wrong_type(std::string_view key, std::string_view expected) const {
  return core::fail(ErrorCode::invalid_request, "field '" + field(key) + "' must be " + std::string(expected),
                    {{"field", field(key)}});
}

core::Result<void> JsonBody::allow_only(const std::vector<std::string_view>& allowed) const {
  for (const auto& [key, value] : object_) {
    bool known = false;
    for (auto a : allowed) known = known || a == key;
    if (!known) {
      json::array names;
      for (auto a : allowed) names.emplace_back(a);
      return core::fail(ErrorCode::invalid_request, "unknown field '" + field(key) + "'",
                        {{"field", field(key)}, {"allowed", std::move(names)}});
    }
  }
  return core::ok();
}

core::Result<std::optional<std::string>> JsonBody::optional_string(std::string_view key) const {
  auto* v = object_.if_contains(key);
  if (!v) return std::optional<std::string>{};
  if (!v->is_string()) return wrong_type(key, "a string");
  return std::optional<std::string>(std::string(v->as_string()));
}

core::Result<std::string> JsonBody::required_string(std::string_view key) const {
  auto* v = object_.if_contains(key);
  if (!v)
    return core::fail(ErrorCode::invalid_request, "field '" + field(key) + "' is required", {{"field", field(key)}});
  if (!v->is_string()) return wrong_type(key, "a string");
  return std::string(v->as_string());
}

core::Result<Nullable<std::string>> JsonBody::nullable_string(std::string_view key) const {
  auto* v = object_.if_contains(key);
  Nullable<std::string> out;
  if (!v) return out;
  out.present = true;
  if (v->is_null()) return out;
  if (!v->is_string()) return wrong_type(key, "a string or null");
  out.value = std::string(v->as_string());
  return out;
}

core::Result<std::optional<bool>> JsonBody::optional_bool(std::string_view key) const {
  auto* v = object_.if_contains(key);
  if (!v) return std::optional<bool>{};
  if (!v->is_bool()) return wrong_type(key, "a boolean");
  return std::optional<bool>(v->as_bool());
}

core::Result<bool> JsonBody::required_bool(std::string_view key) const {
  auto* v = object_.if_contains(key);
  if (!v)
    return core::fail(ErrorCode::invalid_request, "field '" + field(key) + "' is required", {{"field", field(key)}});
  if (!v->is_bool()) return wrong_type(key, "a boolean");
  return v->as_bool();
}

core::Result<std::optional<std::int64_t>> JsonBody::optional_int(std::string_view key, std::int64_t min,
                                                                 std::int64_t max) const {
  auto* v = object_.if_contains(key);
  if (!v) return std::optional<std::int64_t>{};
  std::int64_t n = 0;
  if (v->is_int64()) {
    n = v->as_int64();
  } else if (v->is_uint64() && v->as_uint64() <= static_cast<std::uint64_t>(max)) {
    n = static_cast<std::int64_t>(v->as_uint64());
  } else {
    return wrong_type(key, "an integer");
  }
  if (n < min || n > max)
    return core::fail(ErrorCode::invalid_request,
                      "field '" + field(key) + "' must be between " + std::to_string(min) + " and " +
                          std::to_string(max),
                      {{"field", field(key)}});
  return std::optional<std::int64_t>(n);
}

core::Result<std::optional<json::object>> JsonBody::optional_object(std::string_view key) const {
  auto* v = object_.if_contains(key);
  if (!v) return std::optional<json::object>{};
  if (!v->is_object()) return wrong_type(key, "an object");
  return std::optional<json::object>(v->as_object());
}

core::Result<std::optional<JsonBody>> JsonBody::optional_body(std::string_view key) const {
  auto object = optional_object(key);
  if (!object) return object.failure();
  if (!*object) return std::optional<JsonBody>{};
  return std::optional<JsonBody>(JsonBody(std::move(**object), field(key) + "."));
}

}  // namespace agentry::api
