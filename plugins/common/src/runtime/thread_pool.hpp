// The io_context every backend instance of this plugin library shares, and the threads
// that run it. Private to the runtime: backends see only Executor (executor.hpp).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "agentry/plugin_common/runtime/executor.hpp"

namespace agentry::plugin_common::runtime::detail {

// A few threads (as many as the cores, 2 to 8) run the instances' strands. A handler
// should not block, but some must (a BUSY host is retried by sleeping; a handler the host
// gave up on may never return): a watchdog looks every tick, and when every thread has
// been inside one handler since the last look it adds a thread, up to kMaxThreads. A
// thread above the base count leaves after kIdleExit without work. So a blocked instance
// delays the others by a tick or two, and never stalls them.
//
// Lives while an instance does: after the last instance (and deinit) the library holds
// no threads.
class ThreadPool {
 public:
  static constexpr std::chrono::milliseconds kTick{20};
  static constexpr std::chrono::seconds kIdleExit{2};
  static constexpr std::size_t kMaxThreads = 256;

  // Throws std::system_error when the base threads cannot be started.
  ThreadPool();
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  boost::asio::io_context& context() noexcept { return io_; }

 private:
  struct Worker {
    HandlerSlot slot;
    std::thread thread;
    bool exited = false;          // under mutex_: its loop returned; join it
    uint64_t seen_entered = 0;    // the watchdog's last look at `slot`
    bool seen_inside = false;
  };

  void start_worker(bool extra);  // under mutex_
  void work(Worker& worker, bool extra);
  void watch();
  bool all_stuck();  // under mutex_; also records this look for the next one
  void stop_and_join() noexcept;

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  std::size_t base_ = 2;
  std::mutex mutex_;
  std::condition_variable stopping_changed_;
  bool stopping_ = false;
  std::size_t live_ = 0;  // workers that have not decided to leave
  std::list<Worker> workers_;
  std::thread watchdog_;
};

}  // namespace agentry::plugin_common::runtime::detail
