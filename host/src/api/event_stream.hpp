#pragma once
// A source of Server-Sent Events text, independent of the network layer. The server
// polls it (on a worker thread: it may read the store), writes what it returns, and
// sleeps until the waker fires or a heartbeat is due. Sources keep no unbounded
// buffers: durable events are re-read from the store after the last cursor sent.

#include <functional>
#include <string>
#include <vector>

namespace agentry::api {

/// One event of a stream, transport-neutral: SSE frames it, WebSocket wraps it in a
/// JSON-RPC notification.
struct StreamEvent {
  std::string event;  // "summary", "detail", "timeline", "audit"
  std::string data;   // a JSON object, serialized
  std::string id;     // the cursor, or empty for events that cannot be resumed from
};

class EventStream {
 public:
  virtual ~EventStream() = default;
  /// Called once before the first poll(). `wake` may be called from any thread, any
  /// number of times; it only schedules another poll().
  virtual void start(std::function<void()> wake) = 0;
  /// Events ready now (none: empty). Sets `closed` when the stream is over: the
  /// subscriber fell too far behind, or its run was deleted.
  virtual std::vector<StreamEvent> poll(bool& closed) = 0;
};

/// The SSE text of `events`: "id:" (when there is one) and one "data:" line each.
std::string sse_frames(const std::vector<StreamEvent>& events);

}  // namespace agentry::api
