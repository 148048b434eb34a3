#pragma once
// One event as it goes out to live subscribers, serialized once and shared by all of
// them. Its text is the Server-Sent Events frame; WebSocket notifications wrap the JSON
// part of it, so neither transport serializes an event again.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::events {

/// Made only by the functions below: the text lives in the same allocation as the frame
/// (and its reference count), one allocation per live event, or one per block of frames
/// (FramePacker).
struct FrameData {
  std::int64_t cursor = 0;  // where a client resumes after it (SSE id); 0: not resumable
  std::string_view text;    // ["id: <cursor>\n"] "data: " <json> "\n\n"
  std::size_t json_begin = 0;
  std::size_t json_size = 0;
  std::string_view json() const { return text.substr(json_begin, json_size); }
};
using Frame = std::shared_ptr<const FrameData>;

/// `json` must be one line (serialized JSON always is).
Frame make_frame(std::string_view json, std::int64_t cursor = 0);

/// `text` as a JSON string literal, quotes included.
void append_json_string(std::string& out, std::string_view text);

struct EnvelopeFields {
  std::string_view run_id;
  std::int64_t cursor = 0;  // 0: ephemeral (cursor null)
  std::string_view kind;
  std::optional<int> attempt_number;
  std::string_view at;
  std::string_view payload_json;  // an object, already serialized
  bool conflated = false;         // several deltas of one item merged into this one
};

/// The frame of a timeline envelope (docs/api.md) around an already serialized payload:
/// {"runId","cursor","kind","attemptNumber","at","payload"[,"ephemeral":true][,"conflated":true]},
/// written straight into the frame (the hot path of every live event: one allocation).
Frame timeline_frame(const EnvelopeFields& fields, std::int64_t cursor = 0);

/// Timeline frames of many events at once, written one after another into shared blocks
/// of about 16 KiB (each frame keeps its block alive) instead of an allocation each: the
/// store's writer publishes thousands of events a commit, and their frames leave the
/// window in the order they came. For frames kept and let go together, not for one frame
/// kept long while its neighbours go (a merged delta's newest frame). One packer at a
/// time per thread: it writes in the thread's scratch.
class FramePacker {
 public:
  FramePacker();
  FramePacker(const FramePacker&) = delete;
  FramePacker& operator=(const FramePacker&) = delete;
  ~FramePacker();

  /// Writes the frame of `fields`. `*slot` holds it once flush() ran (on its own when a
  /// block fills, and at the latest by the destructor), so `slot` must stay put until then.
  void add(Frame* slot, const EnvelopeFields& fields, std::int64_t cursor);
  /// Every frame added so far is in its slot.
  void flush();

 private:
  struct Scratch;
  static Scratch& thread_scratch();
  Scratch& scratch_;
};

}  // namespace agentry::events
