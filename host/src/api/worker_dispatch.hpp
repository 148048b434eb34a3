#pragma once
// Running blocking work (engine commands wait for their commit; stream polls read the
// store) on the worker pool from a connection's coroutine, which then resumes on its
// own executor. Internal to the server TUs: it includes Asio.

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace agentry::api {

/// co_await on_workers<T>(pool, fn): runs fn() on `pool` and returns its T.
template <class T, class Fn>
boost::asio::awaitable<T> on_workers(boost::asio::thread_pool& pool, Fn fn) {
  namespace net = boost::asio;
  auto initiation = [&pool, fn = std::move(fn)](auto handler) mutable {
    net::post(pool, [fn = std::move(fn), handler = std::move(handler)]() mutable {
      T result = fn();
      auto executor = net::get_associated_executor(handler);
      net::dispatch(executor, [handler = std::move(handler), result = std::move(result)]() mutable {
        std::move(handler)(std::move(result));
      });
    });
  };
  return net::async_initiate<const net::use_awaitable_t<>, void(T)>(std::move(initiation), net::use_awaitable);
}

/// co_await in_place<T>(fn): runs fn() where the coroutine runs, for work too quick to be
/// worth two thread hand-offs (quick_reads.hpp); the same shape as on_workers().
template <class T, class Fn>
boost::asio::awaitable<T> in_place(Fn fn) {
  co_return fn();
}

}  // namespace agentry::api
