#pragma once
// A live stream a client follows, independent of the transport. Server-Sent Events,
// WebSocket subscriptions and the embedded CLI's follow all drive it the same way:
// start() with a waker, then poll() whenever it fires (or `more` says so), and write the
// frames it returns. Frames are serialized once and shared by every subscriber: SSE
// writes their text, WebSocket wraps their JSON in a notification.

#include "events/frame.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace agentry::api {

struct StreamBatch {
  std::vector<events::Frame> frames;
  bool closed = false;  // the stream is over (its run was deleted)
  bool more = false;    // more is ready now: poll again without waiting for a wake
};

class EventStream {
 public:
  virtual ~EventStream() = default;
  /// "summary", "detail", "timeline" or "audit": the WebSocket method is run.<channel>.
  /// Timeline and audit frames are envelopes with a cursor; the others are objects whose
  /// members a notification's params take.
  virtual const char* channel() const = 0;
  /// Called once before the first poll(). `wake` may be called from any thread, any
  /// number of times; it only schedules another poll().
  virtual void start(std::function<void()> wake) = 0;
  /// [one caller at a time; may read the store, so not on an I/O thread] What is ready
  /// now, at most `max_frames` frames. `look_in_store`: also pick up what another
  /// process wrote to the store, which this one is never told of (the embedded CLI).
  virtual StreamBatch poll(std::size_t max_frames, bool look_in_store) = 0;
  /// [one caller at a time, any thread: never reads the store] poll()'s answer when it
  /// can be had from memory alone; nullopt when poll() must run (off the I/O thread).
  /// Transports try this first, on their own strand.
  virtual std::optional<StreamBatch> poll_ready(std::size_t /*max_frames*/) { return std::nullopt; }
};

}  // namespace agentry::api
