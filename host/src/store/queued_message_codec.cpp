#include "store/queued_message_codec.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentry::store {
namespace json = boost::json;

std::string encode_message_source(const json::object& source) { return json::serialize(source); }

json::object decode_message_source(std::string_view source_json) {
  json::error_code ec;
  auto source = json::parse(source_json, ec);
  if (ec || !source.is_object()) return {};
  return std::move(source.as_object());
}

}  // namespace agentry::store
