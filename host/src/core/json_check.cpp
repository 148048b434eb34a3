#include "core/json_check.hpp"

#include <boost/json/basic_parser_impl.hpp>

#include <limits>

namespace agentry::core {
namespace {

using boost::system::error_code;
using boost::json::string_view;

/// Parser events that only note whether the document's root is an object: the parser
/// itself checks the grammar, UTF-8 and depth.
struct ObjectCheck {
  static constexpr std::size_t max_object_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_array_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_key_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_string_size = std::numeric_limits<std::size_t>::max();

  bool started = false;
  bool root_is_object = false;

  bool first_value(bool is_object) {
    if (!started) root_is_object = is_object;
    started = true;
    return true;
  }

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_object_begin(error_code&) { return first_value(true); }
  bool on_object_end(std::size_t, error_code&) { return true; }
  bool on_array_begin(error_code&) { return first_value(false); }
  bool on_array_end(std::size_t, error_code&) { return true; }
  bool on_key_part(string_view, std::size_t, error_code&) { return true; }
  bool on_key(string_view, std::size_t, error_code&) { return true; }
  bool on_string_part(string_view, std::size_t, error_code&) { return first_value(false); }
  bool on_string(string_view, std::size_t, error_code&) { return first_value(false); }
  bool on_number_part(string_view, error_code&) { return first_value(false); }
  bool on_int64(std::int64_t, string_view, error_code&) { return first_value(false); }
  bool on_uint64(std::uint64_t, string_view, error_code&) { return first_value(false); }
  bool on_double(double, string_view, error_code&) { return first_value(false); }
  bool on_bool(bool, error_code&) { return first_value(false); }
  bool on_null(error_code&) { return first_value(false); }
  bool on_comment_part(string_view, error_code&) { return true; }
  bool on_comment(string_view, error_code&) { return true; }
};

}  // namespace

bool is_json_object(std::string_view text) {
  boost::json::basic_parser<ObjectCheck> parser{boost::json::parse_options{}};
  error_code ec;
  const auto used = parser.write_some(false, text.data(), text.size(), ec);
  return !ec && used == text.size() && parser.handler().root_is_object;
}

}  // namespace agentry::core
