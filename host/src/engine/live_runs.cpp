#include "engine/live_runs.hpp"

#include "core/log.hpp"

namespace agentry::engine {

void LiveRuns::launch(LaunchSpec spec) {
  const std::string id = spec.run.id;
  auto run = std::make_shared<LiveRun>(services_, std::move(spec), [this](const std::string& finished) {
    std::lock_guard lock(mutex_);
    runs_.erase(finished);
  });
  {
    std::lock_guard lock(mutex_);
    runs_[id] = run;
  }
  run->launch();
}

std::shared_ptr<LiveRun> LiveRuns::find(const std::string& run_id) const {
  std::lock_guard lock(mutex_);
  auto it = runs_.find(run_id);
  return it == runs_.end() ? nullptr : it->second;
}

std::size_t LiveRuns::count() const {
  std::lock_guard lock(mutex_);
  return runs_.size();
}

void LiveRuns::stop_all(const std::string& reason, std::chrono::milliseconds wait) {
  std::map<std::string, std::shared_ptr<LiveRun>> runs;
  {
    std::lock_guard lock(mutex_);
    runs = runs_;
  }
  for (auto& [id, run] : runs) run->interrupt(reason, true);
  auto deadline = std::chrono::steady_clock::now() + wait;
  for (auto& [id, run] : runs) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (!run->wait_finished(std::max(left, std::chrono::milliseconds(0))))
      core::log_warn("run still active at shutdown; it will be reconciled on the next start", {{"runId", id}});
  }
}

}  // namespace agentry::engine
