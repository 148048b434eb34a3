#include "store/payload_codec.hpp"

#include <boost/json/parse.hpp>

namespace agentry::store {
namespace json = boost::json;

json::object decode_payload(std::string_view text) {
  boost::system::error_code ec;
  auto v = json::parse(text, ec);
  if (ec) return json::object{{"damaged", "the stored payload cannot be read: " + ec.message()}};
  return v.is_object() ? std::move(v.as_object()) : json::object{};
}

json::object decode_object_or_empty(std::string_view text) {
  boost::system::error_code ec;
  auto v = json::parse(text, ec);
  return !ec && v.is_object() ? std::move(v.as_object()) : json::object{};
}

}  // namespace agentry::store
