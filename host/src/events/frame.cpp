#include "events/frame.hpp"

#include <charconv>

namespace agentry::events {

namespace {

void append_int(std::string& out, std::int64_t n) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, n);
  out.append(buffer, end);
}

/// A frame whose JSON `write_json(text)` appends; `json_size` reserves room for it.
template <typename WriteJson>
Frame frame_with(std::int64_t cursor, std::size_t json_size, WriteJson write_json) {
  auto frame = std::make_shared<FrameData>();
  frame->cursor = cursor;
  std::string& text = frame->text;
  text.reserve(json_size + 32);
  if (cursor > 0) {
    text += "id: ";
    append_int(text, cursor);
    text += '\n';
  }
  text += "data: ";
  frame->json_begin = text.size();
  write_json(text);
  frame->json_size = text.size() - frame->json_begin;
  text += "\n\n";
  return frame;
}

void append_timeline_envelope(std::string& out, const EnvelopeFields& f);

std::size_t envelope_size(const EnvelopeFields& f) {
  return f.payload_json.size() + f.run_id.size() + f.kind.size() + f.at.size() + 120;
}

}  // namespace

Frame make_frame(std::string_view json, std::int64_t cursor) {
  return frame_with(cursor, json.size(), [&](std::string& text) { text += json; });
}

Frame timeline_frame(const EnvelopeFields& fields, std::int64_t cursor) {
  return frame_with(cursor, envelope_size(fields), [&](std::string& text) { append_timeline_envelope(text, fields); });
}

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  std::size_t plain = 0;  // start of the run of characters that need no escape
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text, plain, i - plain);
    plain = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 0xF];
    }
  }
  out.append(text, plain, text.size() - plain);
  out += '"';
}

namespace {

void append_timeline_envelope(std::string& out, const EnvelopeFields& f) {
  out += "{\"runId\":";
  append_json_string(out, f.run_id);
  out += ",\"cursor\":";
  if (f.cursor > 0) append_int(out, f.cursor);
  else out += "null";
  out += ",\"kind\":";
  append_json_string(out, f.kind);
  out += ",\"attemptNumber\":";
  if (f.attempt_number) append_int(out, *f.attempt_number);
  else out += "null";
  out += ",\"at\":";
  append_json_string(out, f.at);
  out += ",\"payload\":";
  out += f.payload_json.empty() ? std::string_view("{}") : f.payload_json;
  if (f.cursor <= 0) out += ",\"ephemeral\":true";
  if (f.conflated) out += ",\"conflated\":true";
  out += '}';
}

}  // namespace

}  // namespace agentry::events
