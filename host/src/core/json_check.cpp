#include "core/json_check.hpp"

#include <boost/json/basic_parser_impl.hpp>

#include <limits>

namespace agentry::core {
namespace {

using boost::system::error_code;
using boost::json::string_view;

/// Parser events, all accepted: the parser itself checks the grammar, UTF-8 and depth.
struct AcceptAll {
  static constexpr std::size_t max_object_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_array_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_key_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_string_size = std::numeric_limits<std::size_t>::max();

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_object_begin(error_code&) { return true; }
  bool on_object_end(std::size_t, error_code&) { return true; }
  bool on_array_begin(error_code&) { return true; }
  bool on_array_end(std::size_t, error_code&) { return true; }
  bool on_key_part(string_view, std::size_t, error_code&) { return true; }
  bool on_key(string_view, std::size_t, error_code&) { return true; }
  bool on_string_part(string_view, std::size_t, error_code&) { return true; }
  bool on_string(string_view, std::size_t, error_code&) { return true; }
  bool on_number_part(string_view, error_code&) { return true; }
  bool on_int64(std::int64_t, string_view, error_code&) { return true; }
  bool on_uint64(std::uint64_t, string_view, error_code&) { return true; }
  bool on_double(double, string_view, error_code&) { return true; }
  bool on_bool(bool, error_code&) { return true; }
  bool on_null(error_code&) { return true; }
  bool on_comment_part(string_view, error_code&) { return true; }
  bool on_comment(string_view, error_code&) { return true; }
};

}  // namespace

bool is_json_object(std::string_view text) {
  // Valid JSON whose first token opens an object is an object (comments are refused).
  const auto first = text.find_first_not_of(" \t\n\r");
  if (first == std::string_view::npos || text[first] != '{') return false;
  boost::json::basic_parser<AcceptAll> parser{boost::json::parse_options{}};
  error_code ec;
  const auto used = parser.write_some(false, text.data(), text.size(), ec);
  return !ec && used == text.size();
}

}  // namespace agentry::core
