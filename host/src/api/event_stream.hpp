#pragma once
// A source of Server-Sent Events text, independent of the network layer. The server
// polls it (on a worker thread: it may read the store), writes what it returns, and
// sleeps until the waker fires or a heartbeat is due. Sources keep no unbounded
// buffers: durable events are re-read from the store after the last cursor sent.

#include <functional>
#include <string>

namespace agentry::api {

class EventStream {
 public:
  virtual ~EventStream() = default;
  /// Called once before the first poll(). `wake` may be called from any thread, any
  /// number of times; it only schedules another poll().
  virtual void start(std::function<void()> wake) = 0;
  /// SSE frames ready now ("" when none). Sets `closed` when the stream is over: the
  /// subscriber fell too far behind, or its run was deleted.
  virtual std::string poll(bool& closed) = 0;
};

/// One SSE frame. `id` empty: no id line (events that cannot be resumed from).
std::string sse_frame(const std::string& event, const std::string& data, const std::string& id = {});

}  // namespace agentry::api
