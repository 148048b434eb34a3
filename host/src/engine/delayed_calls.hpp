#pragma once
// Calls a function with a key after a delay, on the pool: at most one wait per key
// (asking again keeps the earlier due time), and stop() cancels what waits and waits for
// a call in progress, so no call reaches an owner that is going away.

#include "core/executor.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace agentry::engine {

class DelayedCalls {
 public:
  using Call = std::function<void(const std::string& key)>;

  DelayedCalls(core::ThreadPool& pool, Call call);
  /// stop()
  ~DelayedCalls();
  DelayedCalls(const DelayedCalls&) = delete;
  DelayedCalls& operator=(const DelayedCalls&) = delete;

  /// Calls `call(key)` after `delay`, unless a call for `key` already waits.
  void call_after(const std::string& key, std::chrono::milliseconds delay);
  /// Cancels every waiting call and waits for one in progress. Never call it from a call.
  void stop();

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable idle;
    std::map<std::string, core::TimerHandle> waiting;
    int running = 0;
    bool stopped = false;
    Call call;
  };

  core::ThreadPool& pool_;
  std::shared_ptr<State> state_;
};

}  // namespace agentry::engine
