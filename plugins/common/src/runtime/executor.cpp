#include "agentry/plugin_common/runtime/executor.hpp"

#include <algorithm>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>

#include "agentry/plugin_common/child_process.hpp"

namespace agentry::plugin_common::runtime {
namespace detail {

// The io_context every instance of this library shares, run by a few threads: as many as
// the cores, at least 2 (so one slow handler does not stall every instance), at most 8.
// Lives while an instance does (obligation: after the last instance and deinit, the
// library holds no threads).
class Pool {
 public:
  Pool() : guard_(boost::asio::make_work_guard(io_)) {
    const unsigned cores = std::thread::hardware_concurrency();
    const unsigned count = std::clamp(cores, 2u, 8u);
    try {
      for (unsigned i = 0; i < count; ++i)
        threads_.emplace_back([this] {
          // A write to a pipe whose reader died fails with EPIPE here instead of killing the daemon.
          block_sigpipe_on_this_thread();
          io_.run();
        });
    } catch (...) {
      stop_and_join();
      throw;
    }
  }
  ~Pool() { stop_and_join(); }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  boost::asio::io_context& context() noexcept { return io_; }

 private:
  void stop_and_join() noexcept {
    // Every instance's gate is shut by now: what is still queued would only be dropped.
    io_.stop();
    for (std::thread& t : threads_)
      if (t.joinable()) t.join();
  }

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  std::vector<std::thread> threads_;
};

namespace {
std::shared_ptr<Pool> shared_pool() {
  static std::mutex mutex;
  static std::weak_ptr<Pool> current;
  std::lock_guard lock(mutex);
  std::shared_ptr<Pool> pool = current.lock();
  if (!pool) {
    pool = std::make_shared<Pool>();
    current = pool;
  }
  return pool;
}
}  // namespace

}  // namespace detail

Executor::Executor() : pool_(detail::shared_pool()), strand_(boost::asio::make_strand(pool_->context())) {}

Executor::~Executor() { stop(); }

void Executor::stop_after(std::function<void()> last) noexcept {
  if (gate_->open.load(std::memory_order_acquire) && !on_thread()) {
    try {
      std::promise<void> done;
      // Straight on the strand, past the gate: it is this handler that shuts it.
      boost::asio::post(strand_, [&] {
        if (gate_->open.load(std::memory_order_acquire)) {
          last();
          gate_->open.store(false, std::memory_order_release);
        }
        done.set_value();
      });
      done.get_future().wait();
    } catch (...) {  // out of memory for the post: shut the gate anyway (below)
    }
  }
  gate_->open.store(false, std::memory_order_release);
}

void Executor::stop() noexcept {
  stop_after([] {});
}

}  // namespace agentry::plugin_common::runtime
