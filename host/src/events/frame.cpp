#include "events/frame.hpp"

#include <charconv>
#include <cstddef>
#include <cstring>
#include <new>
#include <stdexcept>
#include <type_traits>

namespace agentry::events {

namespace {

void append_int(std::string& out, std::int64_t n) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, n);
  out.append(buffer, end);
}

/// The frame of `text`, copied into one block that holds the frame, its text and their
/// reference count. FrameData is trivially destructible, so the block frees it with the
/// text.
Frame sealed(std::int64_t cursor, std::string_view text, std::size_t json_begin, std::size_t json_size) {
  static_assert(std::is_trivially_destructible_v<FrameData>);
  using Unit = std::max_align_t;
  constexpr std::size_t header = (sizeof(FrameData) + sizeof(Unit) - 1) / sizeof(Unit) * sizeof(Unit);
  auto block = std::make_shared_for_overwrite<Unit[]>((header + text.size() + sizeof(Unit) - 1) / sizeof(Unit));
  auto* bytes = reinterpret_cast<char*>(block.get());
  std::memcpy(bytes + header, text.data(), text.size());
  auto* frame = new (bytes) FrameData{cursor, std::string_view(bytes + header, text.size()), json_begin, json_size};
  return Frame(std::move(block), frame);
}

/// Frames up to this size are written in a scratch text the thread keeps; a longer one
/// (a long message's completion) in its own, so no thread holds on to a large buffer.
constexpr std::size_t scratch_limit = 16 * 1024;

struct FrameText {
  std::size_t json_begin = 0;  // from the frame's start
  std::size_t json_size = 0;
};

/// Appends to `text` the frame whose JSON `write_json(text)` appends.
template <typename WriteJson>
FrameText append_frame(std::string& text, std::int64_t cursor, WriteJson write_json) {
  const std::size_t start = text.size();
  if (cursor > 0) {
    text += "id: ";
    append_int(text, cursor);
    text += '\n';
  }
  text += "data: ";
  FrameText written{text.size() - start, 0};
  const std::size_t json_start = text.size();
  write_json(text);
  written.json_size = text.size() - json_start;
  text += "\n\n";
  return written;
}

/// Escapes can outgrow an estimate: a scratch text never keeps much more than its limit.
void trim_scratch(std::string& scratch) {
  if (scratch.capacity() > 4 * scratch_limit) std::string().swap(scratch);
}

/// A frame whose JSON `write_json(text)` appends; `json_size` reserves room for it.
template <typename WriteJson>
Frame frame_with(std::int64_t cursor, std::size_t json_size, WriteJson write_json) {
  thread_local std::string scratch;
  std::string own;
  std::string& text = json_size + 32 <= scratch_limit ? scratch : own;
  text.clear();
  text.reserve(json_size + 32);
  auto written = append_frame(text, cursor, write_json);
  Frame frame = sealed(cursor, text, written.json_begin, written.json_size);
  trim_scratch(scratch);
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

// --- FramePacker -------------------------------------------------------------------------

struct FramePacker::Scratch {
  struct Pending {
    Frame* slot;
    std::int64_t cursor;
    std::size_t begin;  // in text
    std::size_t size;
    std::size_t json_begin;  // from begin
    std::size_t json_size;
  };
  std::string text;  // the frames not yet in a block, one after another
  std::vector<Pending> pending;
  bool in_use = false;
};

FramePacker::Scratch& FramePacker::thread_scratch() {
  thread_local Scratch scratch;
  return scratch;
}

FramePacker::FramePacker() : scratch_(thread_scratch()) {
  if (scratch_.in_use) throw std::logic_error("one FramePacker at a time per thread");
  scratch_.in_use = true;
  scratch_.text.clear();
  scratch_.pending.clear();
}

FramePacker::~FramePacker() {
  flush();
  scratch_.in_use = false;
}

void FramePacker::add(Frame* slot, const EnvelopeFields& fields, std::int64_t cursor) {
  // A frame about as large as a block gets one of its own.
  if (envelope_size(fields) > scratch_limit / 2) {
    *slot = timeline_frame(fields, cursor);
    return;
  }
  auto& text = scratch_.text;
  const std::size_t begin = text.size();
  auto written = append_frame(text, cursor, [&](std::string& out) { append_timeline_envelope(out, fields); });
  scratch_.pending.push_back({slot, cursor, begin, text.size() - begin, written.json_begin, written.json_size});
  if (text.size() >= scratch_limit) flush();
}

void FramePacker::flush() {
  auto& pending = scratch_.pending;
  auto& text = scratch_.text;
  if (pending.empty()) return;
  // One block: [FrameData x n][their texts]. FrameData is trivially destructible (see
  // sealed()), so the block frees them with the texts when its last frame goes.
  using Unit = std::max_align_t;
  const std::size_t header = (pending.size() * sizeof(FrameData) + sizeof(Unit) - 1) / sizeof(Unit) * sizeof(Unit);
  auto block = std::make_shared_for_overwrite<Unit[]>((header + text.size() + sizeof(Unit) - 1) / sizeof(Unit));
  auto* bytes = reinterpret_cast<char*>(block.get());
  std::memcpy(bytes + header, text.data(), text.size());
  auto* frames = reinterpret_cast<FrameData*>(bytes);
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const auto& p = pending[i];
    auto* frame = new (frames + i)
        FrameData{p.cursor, std::string_view(bytes + header + p.begin, p.size), p.json_begin, p.json_size};
    *p.slot = Frame(block, frame);
  }
  pending.clear();
  text.clear();
  trim_scratch(text);
}

namespace {

/// Whether `text` holds a character JSON must escape. Without an early exit: ids, kinds
/// and times never do, and a loop without branches per byte scans them faster.
bool needs_escape(std::string_view text) {
  bool found = false;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    found |= (c < 0x20) | (c == '"') | (c == '\\');
  }
  return found;
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  if (!needs_escape(text)) {  // the common case: quotes around the text, in one growth of `out`
    const std::size_t start = out.size();
    out.resize(start + text.size() + 2);
    char* p = out.data() + start;
    p[0] = '"';
    if (!text.empty()) std::memcpy(p + 1, text.data(), text.size());  // an empty view's data may be null
    p[text.size() + 1] = '"';
    return;
  }
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

/// Appends to a string, escaping what JSON strings must.
struct EscapingSink {
  std::string& out;
  void raw(std::string_view text) { out += text; }
  void quoted(std::string_view text) { append_json_string(out, text); }
  void number(std::int64_t n) { append_int(out, n); }
};

/// Writes into room made beforehand, for strings that need no escape: no growth checks
/// on the path every live event takes.
struct PlainSink {
  char* p;
  void raw(std::string_view text) {
    if (!text.empty()) std::memcpy(p, text.data(), text.size());  // an empty view's data may be null
    p += text.size();
  }
  void quoted(std::string_view text) {
    *p++ = '"';
    raw(text);
    *p++ = '"';
  }
  void number(std::int64_t n) { p = std::to_chars(p, p + 20, n).ptr; }
};

/// The bytes of an envelope beyond its four texts: its names and punctuation (96), the
/// quotes of three strings, two numbers (31) and "{}" for an empty payload.
constexpr std::size_t envelope_overhead = 160;

template <typename Sink>
void write_envelope(Sink& s, const EnvelopeFields& f) {
  s.raw("{\"runId\":");
  s.quoted(f.run_id);
  s.raw(",\"cursor\":");
  if (f.cursor > 0) s.number(f.cursor);
  else s.raw("null");
  s.raw(",\"kind\":");
  s.quoted(f.kind);
  s.raw(",\"attemptNumber\":");
  if (f.attempt_number) s.number(*f.attempt_number);
  else s.raw("null");
  s.raw(",\"at\":");
  s.quoted(f.at);
  s.raw(",\"payload\":");
  s.raw(f.payload_json.empty() ? std::string_view("{}") : f.payload_json);
  if (f.cursor <= 0) s.raw(",\"ephemeral\":true");
  if (f.conflated) s.raw(",\"conflated\":true");
  s.raw("}");
}

void append_timeline_envelope(std::string& out, const EnvelopeFields& f) {
  if (needs_escape(f.run_id) || needs_escape(f.kind) || needs_escape(f.at)) {
    EscapingSink sink{out};
    write_envelope(sink, f);
    return;
  }
  const std::size_t start = out.size();
  out.resize(start + f.run_id.size() + f.kind.size() + f.at.size() + f.payload_json.size() + envelope_overhead);
  PlainSink sink{out.data() + start};
  write_envelope(sink, f);
  out.resize(static_cast<std::size_t>(sink.p - out.data()));
}

}  // namespace

}  // namespace agentry::events
