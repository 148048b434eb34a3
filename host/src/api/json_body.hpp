#pragma once
// Validation of JSON request bodies at the API boundary. A body must be a JSON object
// with only known keys, each of the right type; the first problem becomes a 400
// INVALID_REQUEST naming the field. Nothing reaches the engine unvalidated.

#include "core/result.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::api {

/// Absent, explicitly null, or a value: the API distinguishes "leave as is" from "clear".
template <class T>
struct Nullable {
  bool present = false;
  std::optional<T> value;  // empty when present and null
};

/// Why `value` cannot be taken in, or nothing. Refused at the boundary: a NUL character
/// in a string or key (text is cut short where it reaches C strings: argv, the
/// environment, file names), and a number too large for a double (Boost.JSON reads 1e400
/// as infinity and would write it back as `Infinity`, which is not JSON).
struct UnstorableValue {
  std::string field;   // dotted path, "(value)" for the value itself
  std::string reason;  // "nul_character" or "non_finite_number"
};
std::optional<UnstorableValue> first_unstorable(const boost::json::value& value, const std::string& path = {});
/// The INVALID_REQUEST error for it.
core::Error unstorable_error(const UnstorableValue& problem);

class JsonBody {
 public:
  /// Parses `text`; an empty body counts as {} when `empty_is_object`.
  static core::Result<JsonBody> parse(const std::string& text, bool empty_is_object = true);
  explicit JsonBody(boost::json::object object, std::string path = {});

  /// INVALID_REQUEST naming the first key not in `allowed`.
  core::Result<void> allow_only(const std::vector<std::string_view>& allowed) const;
  core::Result<void> allow_only(std::initializer_list<std::string_view> allowed) const {
    return allow_only(std::vector<std::string_view>(allowed));
  }

  bool has(std::string_view key) const { return object_.contains(key); }
  const boost::json::object& object() const { return object_; }

  core::Result<std::optional<std::string>> optional_string(std::string_view key) const;
  core::Result<std::string> required_string(std::string_view key) const;
  core::Result<Nullable<std::string>> nullable_string(std::string_view key) const;
  core::Result<std::optional<bool>> optional_bool(std::string_view key) const;
  core::Result<bool> required_bool(std::string_view key) const;
  core::Result<std::optional<std::int64_t>> optional_int(std::string_view key, std::int64_t min,
                                                         std::int64_t max) const;
  core::Result<std::optional<boost::json::object>> optional_object(std::string_view key) const;
  /// A nested object validated with its own JsonBody (for "overrides" and the like).
  core::Result<std::optional<JsonBody>> optional_body(std::string_view key) const;

 private:
  core::Failure wrong_type(std::string_view key, std::string_view expected) const;
  std::string field(std::string_view key) const;

  boost::json::object object_;
  std::string path_;  // "overrides." for nested bodies, so errors name the full field
};

/// Size limits applied to free-text fields everywhere.
inline constexpr std::size_t max_message_bytes = 256 * 1024;
inline constexpr std::size_t max_name_bytes = 200;
inline constexpr std::size_t max_note_bytes = 64 * 1024;
/// A question put to a run's backend (runs.ask).
inline constexpr std::size_t max_question_bytes = 16 * 1024;

}  // namespace agentry::api
