#include "agentry/plugin_common/runtime/executor.hpp"

#include <future>

#include <boost/asio/executor_work_guard.hpp>

#include "agentry/plugin_common/child_process.hpp"

namespace agentry::plugin_common::runtime {

Executor::Executor() {
  thread_ = std::thread([this] {
    thread_id_.store(std::this_thread::get_id());
    // A write to a pipe whose reader died fails with EPIPE here instead of killing the daemon.
    block_sigpipe_on_this_thread();
    auto guard = boost::asio::make_work_guard(io_);
    io_.run();
  });
  thread_id_.store(thread_.get_id());
}

Executor::~Executor() { stop(); }

void Executor::stop_after(std::function<void()> last) noexcept {
  if (!io_.stopped() && !on_thread()) {
    try {
      std::promise<void> done;
      post([&] {
        last();
        done.set_value();
      });
      done.get_future().wait();
    } catch (...) {  // out of memory for the post: stop anyway; the owner's destructors still kill children
    }
  }
  stop();
}

void Executor::stop() noexcept {
  io_.stop();
  if (thread_.joinable() && !on_thread()) thread_.join();
}

}  // namespace agentry::plugin_common::runtime
