// One executor per backend instance: an io_context that one thread runs. Everything an
// instance does (its child's I/O, its protocol, its timers) happens on that thread in
// order, so the backend's own state needs no locks; the host's control context only
// posts work to it.
#pragma once

#include <atomic>
#include <functional>
#include <thread>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

namespace agentry::plugin_common::runtime {

class Executor {
 public:
  // Starts the thread. Throws std::system_error when it cannot.
  Executor();
  // stop(): the thread is joined before anything it could touch is gone.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  boost::asio::io_context& context() noexcept { return io_; }

  // [thread-safe] Runs `work` on the executor thread, after what was posted before it.
  template <class Work>
  void post(Work&& work) {
    boost::asio::post(io_, std::forward<Work>(work));
  }

  // True on the executor's own thread.
  bool on_thread() const noexcept { return std::this_thread::get_id() == thread_id_.load(); }

  // Stops the loop (handlers not yet run are dropped) and joins the thread. Idempotent;
  // never from the executor thread itself.
  void stop() noexcept;

  // A backend instance's teardown (obligation 10): runs `last` on the executor thread
  // after what was posted before it, waits for it, then stop(). Never from the executor.
  void stop_after(std::function<void()> last) noexcept;

 private:
  boost::asio::io_context io_{1};
  std::thread thread_;
  std::atomic<std::thread::id> thread_id_{};
};

}  // namespace agentry::plugin_common::runtime
