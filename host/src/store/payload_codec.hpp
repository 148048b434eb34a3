#pragma once
// How stored JSON objects other than a run's are read back, whatever the engine: event
// payloads (timeline, audit) and a session's source. Boost.JSON writes them; a row
// another version or a damaged file left unreadable must not fail the page it is on.

#include <boost/json/object.hpp>

#include <string_view>

namespace agentry::store {

/// A stored event payload. An unreadable one is {"damaged": why}, so viewers show the
/// event as damaged instead of failing its page; a non-object one is empty.
boost::json::object decode_payload(std::string_view text);

/// A stored object whose loss is harmless (a session's source): an unreadable or
/// non-object text is empty.
boost::json::object decode_object_or_empty(std::string_view text);

}  // namespace agentry::store
