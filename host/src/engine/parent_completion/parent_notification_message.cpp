#include "engine/parent_completion/parent_notification_message.hpp"

#include "core/utf8.hpp"

namespace agentry::engine {
namespace {

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

}  // namespace

std::string bounded_transcript(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return core::sanitize_utf8(text);
  const std::size_t prefix = truncated_marker.size() + 1;  // the marker and its newline
  std::size_t keep = limit > prefix ? limit - prefix : 0;
  std::size_t start = text.size() - keep;
  // Never begin inside a character: skip the continuation bytes of one cut in half.
  while (start < text.size() && is_continuation(static_cast<unsigned char>(text[start]))) ++start;
  std::string out(truncated_marker);
  out += '\n';
  out += core::sanitize_utf8(text.substr(start));
  return out;
}

std::string parent_completion_message(const ChildCompletion& child, std::size_t transcript_limit) {
  std::string out = "Child run " + child.child_run_id;
  if (child.child_name && !child.child_name->empty()) out += " (" + *child.child_name + ")";
  out += " ended: " + child.status;
  if (!child.status_reason.empty()) out += " (" + child.status_reason + ")";
  out += ". Session " + std::to_string(child.session_index) + ".\n";
  out += "Inspect it: agentry show " + child.child_run_id + " · agentry logs " + child.child_run_id + "\n";
  std::string transcript;
  for (const auto& text : child.transcript) {
    if (text.empty()) continue;
    if (!transcript.empty()) transcript += "\n\n";
    transcript += text;
  }
  if (transcript.empty()) {
    out += "Last transcript: (the session recorded no assistant message)\n";
    return out;
  }
  out += "Last transcript:\n";
  out += bounded_transcript(transcript, transcript_limit);
  if (out.back() != '\n') out += '\n';
  return out;
}

}  // namespace agentry::engine
