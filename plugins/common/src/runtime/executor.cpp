#include "agentry/plugin_common/runtime/executor.hpp"

#include <future>
#include <mutex>

#include "thread_pool.hpp"

namespace agentry::plugin_common::runtime {
namespace detail {

namespace {
std::shared_ptr<ThreadPool> shared_pool() {
  static std::mutex mutex;
  static std::weak_ptr<ThreadPool> current;
  std::lock_guard lock(mutex);
  std::shared_ptr<ThreadPool> pool = current.lock();
  if (!pool) {
    pool = std::make_shared<ThreadPool>();
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
