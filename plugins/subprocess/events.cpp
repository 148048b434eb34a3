#include "events.hpp"

#include <boost/json.hpp>

#include "agentry/plugin/cpp/json.hpp"
#include "agentry/plugin/events.h"
#include "agentry/plugin_common/line_splitter.hpp"

namespace agentry::subprocess {

namespace json = boost::json;
using agentry::plugin::sanitize_utf8;

Event notice(std::string_view level, std::string_view message, std::string_view stream) {
  json::object payload;
  payload["level"] = level;
  payload["message"] = sanitize_utf8(message);
  if (!stream.empty()) payload["stream"] = stream;
  return Event{AGENTRY_EVENT_NOTICE, 0, json::serialize(payload)};
}

Event stderr_notice(std::string_view line, std::size_t dropped) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::string message(line.substr(0, plugin_common::utf8_prefix_length(line, kStderrLineBytes)));
  dropped += line.size() - message.size();
  if (dropped > 0) message += " [... " + std::to_string(dropped) + " more bytes]";
  return notice("warning", message, "stderr");
}

Event message_delta(std::string_view text) {
  json::object payload;
  payload["text"] = sanitize_utf8(text);
  return Event{AGENTRY_EVENT_MESSAGE_DELTA, AGENTRY_EVENT_FLAG_EPHEMERAL, json::serialize(payload)};
}

void OutputTail::append(std::string_view text) {
  total_ += text.size();
  kept_.append(text);
  if (kept_.size() > 2 * kCompletedTextBytes) kept_.erase(0, kept_.size() - kCompletedTextBytes);
}

Event OutputTail::completed_event() const {
  // Escaping can grow text up to 6x (control bytes), so shrink until the payload fits.
  for (std::size_t limit = kCompletedTextBytes;; limit /= 2) {
    std::string_view tail(kept_);
    if (tail.size() > limit) tail.remove_prefix(tail.size() - limit);
    // Start on a character boundary: skip continuation bytes at the cut.
    while (tail.size() < kept_.size() && !tail.empty() && (static_cast<unsigned char>(tail.front()) & 0xC0) == 0x80)
      tail.remove_prefix(1);
    std::string text;
    if (tail.size() < total_)
      text = "[... " + std::to_string(total_ - tail.size()) + " bytes of earlier output omitted ...]\n";
    text += sanitize_utf8(tail);
    json::object payload;
    payload["text"] = std::move(text);
    payload["role"] = "assistant";
    std::string body = json::serialize(payload);
    if (body.size() <= AGENTRY_EVENT_MAX_PAYLOAD_BYTES || limit < 1024)
      return Event{AGENTRY_EVENT_MESSAGE_COMPLETED, 0, std::move(body)};
  }
}

}  // namespace agentry::subprocess
