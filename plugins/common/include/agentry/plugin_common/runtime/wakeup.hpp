// What a condition variable is to a thread, for coroutines on one executor (the browser's
// attempt, the mock's script): wait_until() suspends until notify() or the deadline, and
// the caller checks its condition again. No lock: everything runs on the instance's strand, so a notify() can only
// come while the waiter is suspended, never between its check and its wait.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace agentry::plugin_common::runtime {

class Wakeup {
 public:
  explicit Wakeup(const boost::asio::any_io_executor& io) : io_(io) {}

  boost::asio::awaitable<void> wait_until(std::chrono::steady_clock::time_point deadline) {
    boost::asio::steady_timer timer(io_, deadline);
    waiting_.push_back(&timer);
    co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), &timer));
  }

  void notify() {
    for (boost::asio::steady_timer* t : waiting_) t->cancel();
  }

 private:
  boost::asio::any_io_executor io_;
  std::vector<boost::asio::steady_timer*> waiting_;  // each in its waiter's frame
};

}  // namespace agentry::plugin_common::runtime
