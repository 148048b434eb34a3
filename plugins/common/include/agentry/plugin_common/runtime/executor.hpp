// One executor per backend instance: a strand of a small thread pool that every instance
// of this plugin library shares. Everything an instance does (its child's I/O, its
// protocol, its timers) runs on its strand one handler at a time and in order, so the
// backend's own state needs no locks; the host's control context only posts work to it.
// A pool rather than a thread per instance: 400 runs relaying events would otherwise be
// 400 threads, each woken for every event, whose switching costs more than the work.
// The pool grows while all its threads are held by handlers that block (thread_pool.hpp).
//
// Closing (stop) shuts the instance's gate: a handler of its I/O that completes later is
// destroyed without running, as it was when each instance had an io_context of its own.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

namespace agentry::plugin_common::runtime {

namespace detail {

class ThreadPool;  // the library's io_context and its threads (src/runtime/thread_pool.hpp)

// What the pool's watchdog reads of one of its threads. Written by that thread only.
struct HandlerSlot {
  std::atomic<uint64_t> entered{0};  // instance handlers begun on it so far
  std::atomic<uint32_t> depth{0};    // instance handlers running on it now (a dispatch nests)
};

// Marks the current thread as inside an instance's handler while it lives (off the pool:
// does nothing).
class HandlerMark {
 public:
  HandlerMark() noexcept;
  ~HandlerMark();
  HandlerMark(const HandlerMark&) = delete;
  HandlerMark& operator=(const HandlerMark&) = delete;

 private:
  HandlerSlot* slot_;
};

// Open while the instance runs; shut by stop(), always from inside the instance's strand
// (or once no handler of it can run), so the check below never races a handler.
struct Gate {
  std::atomic<bool> open{true};
};

// An Asio executor that runs work on `Inner` (a strand) only while the gate is open.
// Forwards every property to `Inner`, so it converts to any_io_executor like the strand.
template <class Inner>
class GatedExecutor {
 public:
  GatedExecutor(Inner inner, std::shared_ptr<Gate> gate) noexcept : inner_(std::move(inner)), gate_(std::move(gate)) {}

  template <class Property>
  auto query(const Property& p) const noexcept(noexcept(boost::asio::query(std::declval<const Inner&>(), p)))
      -> decltype(boost::asio::query(std::declval<const Inner&>(), p)) {
    return boost::asio::query(inner_, p);
  }

  template <class Property>
  auto require(const Property& p) const
      -> GatedExecutor<std::decay_t<decltype(boost::asio::require(std::declval<const Inner&>(), p))>> {
    return {boost::asio::require(inner_, p), gate_};
  }

  template <class Property>
  auto prefer(const Property& p) const
      -> GatedExecutor<std::decay_t<decltype(boost::asio::prefer(std::declval<const Inner&>(), p))>> {
    return {boost::asio::prefer(inner_, p), gate_};
  }

  template <class Function>
  void execute(Function&& f) const {
    inner_.execute([gate = gate_, f = std::forward<Function>(f)]() mutable {
      if (!gate->open.load(std::memory_order_acquire)) return;
      const HandlerMark mark;
      std::move(f)();
    });
  }

  friend bool operator==(const GatedExecutor& a, const GatedExecutor& b) noexcept {
    return a.gate_ == b.gate_ && a.inner_ == b.inner_;
  }
  friend bool operator!=(const GatedExecutor& a, const GatedExecutor& b) noexcept { return !(a == b); }

 private:
  template <class>
  friend class GatedExecutor;
  Inner inner_;
  std::shared_ptr<Gate> gate_;
};

}  // namespace detail

class Executor {
 public:
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

  // Joins the library's pool (starting it for the first instance). Throws
  // std::system_error when a thread cannot be started.
  Executor();
  // stop(); the pool's threads are joined when its last instance is gone.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // What an instance's I/O objects, timers and coroutines are bound to.
  boost::asio::any_io_executor get_executor() const { return detail::GatedExecutor<Strand>(strand_, gate_); }

  // [thread-safe] Runs `work` on the instance's strand, after what was posted before it.
  template <class Work>
  void post(Work&& work) {
    boost::asio::post(detail::GatedExecutor<Strand>(strand_, gate_), std::forward<Work>(work));
  }

  // True inside one of the instance's handlers.
  bool on_thread() const noexcept { return strand_.running_in_this_thread(); }

  // Shuts the gate: nothing of the instance runs after this returns, and what was posted
  // or completes later is dropped. Idempotent; never from one of the instance's handlers.
  void stop() noexcept;

  // A backend instance's teardown (obligation 10): runs `last` on the strand after what
  // was posted before it, shuts the gate there and waits for that. Never from the strand.
  void stop_after(std::function<void()> last) noexcept;

 private:
  std::shared_ptr<detail::ThreadPool> pool_;
  Strand strand_;
  std::shared_ptr<detail::Gate> gate_ = std::make_shared<detail::Gate>();
};

}  // namespace agentry::plugin_common::runtime
