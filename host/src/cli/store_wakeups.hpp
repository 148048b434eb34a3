#pragma once
// Wake-ups from the other members of a shared store (store::Store::set_wakeup_listener)
// turned into looks now instead of at the next poll: "requests" makes the engine read the
// requests for its runs (engine/leases/run_inbox.hpp); "changed" makes it notice what the
// others committed (Engine::notice_foreign_changes), at most every 100 ms: each look
// reads every run the others changed since the last, and under load they all change.
// A look is always due after the last wake-up, so a commit whose own wake-up fell
// inside the 50 ms the writers leave between two is noticed by the next look.

#include "core/executor.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace agentry::engine {
class Engine;
}
namespace agentry::store {
class Store;
}

namespace agentry::cli {

class StoreWakeups {
 public:
  StoreWakeups(store::Store& db, core::ThreadPool& pool, engine::Engine& engine);
  /// Stops listening; once it returns, nothing it posted touches the engine.
  ~StoreWakeups();
  StoreWakeups(const StoreWakeups&) = delete;
  StoreWakeups& operator=(const StoreWakeups&) = delete;

 private:
  struct Gate {
    std::mutex mutex;
    bool open = true;
    std::atomic<bool> look_scheduled{false};
    std::atomic<std::int64_t> last_look_ns{0};  // steady clock
  };
  static constexpr std::chrono::milliseconds min_look_gap{100};
  void on_topic(const std::string& topic);
  void schedule_look();

  store::Store& db_;
  core::ThreadPool& pool_;
  engine::Engine& engine_;
  std::shared_ptr<Gate> gate_ = std::make_shared<Gate>();
};

}  // namespace agentry::cli
