#pragma once
// How a queued message's source (who queued it) is stored, whatever the engine: a JSON
// object as text.

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace agentry::store {

std::string encode_message_source(const boost::json::object& source);
/// Empty when the stored text is not a JSON object: a message with a damaged source is
/// still delivered, only without saying who queued it.
boost::json::object decode_message_source(std::string_view source_json);

}  // namespace agentry::store
