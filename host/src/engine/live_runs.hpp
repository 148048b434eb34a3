#pragma once
// The runs this process is driving right now, by run id.

#include "engine/live_run.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace agentry::engine {

class LiveRuns {
 public:
  explicit LiveRuns(LiveRunServices services) : services_(services) {}

  void launch(LaunchSpec spec);
  std::shared_ptr<LiveRun> find(const std::string& run_id) const;
  std::size_t count() const;
  /// Interrupts every live run (as aborted, with `reason`) and waits for them to end.
  void stop_all(const std::string& reason, std::chrono::milliseconds wait);

 private:
  LiveRunServices services_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<LiveRun>> runs_;
};

}  // namespace agentry::engine
