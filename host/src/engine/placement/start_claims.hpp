#pragma once
// When this process looks for waiting starts it can claim (Engine::claim_waiting_starts):
// on a wake-up ("starts" from another member, a live run of its own ending, the owner
// sweep), one look at a time, wake-ups during a look folded into one more look after it.

#include "core/executor.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

namespace agentry::engine {

class StartClaims {
 public:
  StartClaims(core::ThreadPool& pool, std::function<void()> look);
  ~StartClaims();
  StartClaims(const StartClaims&) = delete;
  StartClaims& operator=(const StartClaims&) = delete;

  /// From now on wake() looks: only a serving daemon claims starts (an embedded CLI
  /// would leave a run it claimed when it exits).
  void start();
  /// A look soon, on the pool; nothing before start().
  void wake();
  /// Idempotent; once it returns, no look runs again.
  void stop();

 private:
  // Shared with posted looks, which may run after this object is gone: they find `open`
  // false under `looking` and leave.
  struct Gate {
    std::mutex looking;
    std::atomic<bool> open{false};
    std::atomic<bool> due{false};
    std::function<void()> look;
  };
  core::ThreadPool& pool_;
  std::shared_ptr<Gate> gate_ = std::make_shared<Gate>();
};

}  // namespace agentry::engine
