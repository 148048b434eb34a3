#include "events.hpp"

#include <boost/json/serialize.hpp>

#include "agentry/plugin/cpp/json.hpp"
#include "agentry/plugin/events.h"
#include "agentry/plugin_common/line_splitter.hpp"

namespace agentry::claude {

Event make_event(uint16_t type, const boost::json::object& payload, uint32_t flags) {
  return Event{type, flags, boost::json::serialize(payload)};
}

Event notice(std::string_view level, std::string_view message) {
  return make_event(AGENTRY_EVENT_NOTICE, {{"level", level}, {"message", bounded_text(message, kNoticeBytes)}});
}

std::string bounded_text(std::string_view text, std::size_t max_bytes, bool* truncated) {
  const std::size_t keep = agentry::plugin_common::utf8_prefix_length(text, max_bytes);
  if (truncated != nullptr) *truncated = keep < text.size();
  // Boost.JSON would pass invalid bytes through unchecked; the host rejects them.
  return agentry::plugin::sanitize_utf8(text.substr(0, keep));
}

}  // namespace agentry::claude
