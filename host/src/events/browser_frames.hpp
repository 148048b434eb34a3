#pragma once
// Each run's browser live view (ABI event BROWSER_FRAME): only the latest frame, or the
// reason there is none, held in memory and never in the timeline. A frame is serialized
// once, as the stream frame every subscriber (SSE, WebSocket) sends; the JPEG itself is
// decoded on demand for GET /api/runs/:id/browser/frame. A slow viewer skips to the
// newest frame instead of queueing old ones, so memory stays one frame per run.

#include "core/run.hpp"
#include "events/frame.hpp"

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace agentry::events {

struct BrowserView {
  std::uint64_t seq = 0;        // increases with every update of this run's view
  bool available = false;       // a frame (else `reason` says why there is none)
  std::string reason;
  std::string at;               // when it arrived (ISO 8601)
  std::string mime;             // "image/jpeg"
  std::string data_base64;      // the image
  Frame frame;                  // {"type": "browser_frame"|"browser_unavailable", "runId", "seq", "at", ...}
};

class BrowserFrames {
 public:
  /// Runs whose view is kept; the least recently updated one goes first.
  static constexpr std::size_t max_runs = 64;
  /// The largest image (base64) accepted.
  static constexpr std::size_t max_data_bytes = 1024 * 1024;

  /// Checks a BROWSER_FRAME payload and makes it the run's view. An error message when
  /// the payload is malformed (then nothing changes).
  std::optional<std::string> publish(const std::string& run_id, const boost::json::object& payload);
  /// The run's view, if any arrived since the daemon started: shared, never copied (a
  /// frame is tens of kilobytes and every viewer reads it at every change).
  std::shared_ptr<const BrowserView> latest(const std::string& run_id) const;
  void forget(const std::string& run_id);

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const BrowserView>> views_;
  std::list<std::string> order_;  // least recently updated first
  std::uint64_t next_seq_ = 1;
};

/// Why a run shows no live view when none has arrived since the daemon started: never a
/// blank panel.
std::string no_view_reason(const core::Run& run);

/// The stream frame that says so: {"type": "browser_unavailable", "runId", "seq": 0, "reason"}.
Frame no_view_frame(const core::Run& run);

}  // namespace agentry::events
