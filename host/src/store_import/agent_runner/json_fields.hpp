#pragma once
// Typed reads of agent-runner's JSON files for the importer. A field that is missing or
// of the wrong type throws FieldError naming the file and the field's path
// ("run.json: sessions[2].startedAt must be a string"), which the readers turn into one
// refusal of the run: a state directory is read whole or not imported at all.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace agentry::store_import::agent_runner {

class FieldError : public std::runtime_error {
 public:
  FieldError(std::string file, std::string field, const std::string& reason)
      : std::runtime_error(file + ": " + (field.empty() ? reason : field + " " + reason)),
        file_(std::move(file)),
        field_(std::move(field)),
        reason_(reason) {}
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  std::string field_;
  std::string reason_;
};

/// One JSON object of a file, at `path` inside it ("" for the top level).
class Fields {
 public:
  Fields(const boost::json::object& object, std::string file, std::string path = {})
      : o_(object), file_(std::move(file)), path_(std::move(path)) {}

  std::string string(const char* key) const;
  std::optional<std::string> optional_string(const char* key) const;  // absent or null: nullopt
  std::int64_t integer(const char* key) const;
  std::optional<std::int64_t> optional_integer(const char* key) const;
  bool boolean(const char* key) const;
  bool boolean_or(const char* key, bool fallback) const;  // absent: fallback
  const boost::json::array& array(const char* key) const;
  const boost::json::object& object(const char* key) const;
  /// Absent or null: nullptr.
  const boost::json::object* optional_object(const char* key) const;
  /// The value as it is, or nullptr when absent.
  const boost::json::value* raw(const char* key) const { return o_.if_contains(key); }
  std::vector<std::string> strings(const char* key) const;

  /// The object at `key` (or at index `i` of the array at `key`), for nested reads.
  Fields nested(const char* key) const;
  Fields element(const char* key, std::size_t i) const;

  const std::string& file() const { return file_; }
  /// The path of `key` within the file, as errors name it.
  std::string where(const char* key) const { return path_.empty() ? std::string(key) : path_ + "." + key; }
  [[noreturn]] void fail(const char* key, const std::string& reason) const { throw FieldError(file_, where(key), reason); }

 private:
  const boost::json::value& required(const char* key) const;
  const boost::json::object& o_;
  std::string file_;
  std::string path_;
};

}  // namespace agentry::store_import::agent_runner
