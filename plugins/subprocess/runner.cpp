// Runner: the instance's io_context and its one I/O thread. The attempt itself lives in
// attempt.cpp; this file needs only the light part of Asio (io_context, post).
#include "runner.hpp"

#include <atomic>
#include <optional>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "attempt.hpp"
#include "agentry/plugin_common/child_process.hpp"

namespace agentry::subprocess {

namespace asio = boost::asio;
using plugin_common::block_sigpipe_on_this_thread;

struct Runner::Impl {
  explicit Impl(agentry::plugin::Host& h) : host(h) {}
  agentry::plugin::Host& host;
  asio::io_context ioc{1};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::thread thread;
  std::atomic<bool> running{false};
  std::shared_ptr<Attempt> current;  // I/O thread only

  void io_main() noexcept {
    block_sigpipe_on_this_thread();
    for (;;) {
      try {
        ioc.run();
        return;
      } catch (const std::exception& e) {
        host.log(AGENTRY_LOG_ERROR, std::string("subprocess: I/O thread: ") + e.what());
      } catch (...) {
        host.log(AGENTRY_LOG_ERROR, "subprocess: I/O thread: unknown exception");
      }
    }
  }
};

Runner::Runner(agentry::plugin::Host& host) : impl_(std::make_unique<Impl>(host)) {}

Runner::~Runner() { shutdown(); }

bool Runner::running() const noexcept { return impl_->running.load(); }

void Runner::start(AttemptSpec spec) {
  Impl& impl = *impl_;
  if (!impl.thread.joinable()) {
    impl.work.emplace(impl.ioc.get_executor());
    try {
      impl.thread = std::thread([&impl] { impl.io_main(); });
    } catch (...) {
      impl.work.reset();
      throw;
    }
  }
  impl.running.store(true);
  try {
    asio::post(impl.ioc, [&impl, spec = std::move(spec)]() mutable {
      impl.current = begin_attempt(impl.ioc, impl.host, std::move(spec), impl.running);
    });
  } catch (...) {
    impl.running.store(false);
    throw;
  }
}

void Runner::interrupt(std::string reason) {
  asio::post(impl_->ioc, [&impl = *impl_, reason = std::move(reason)]() mutable {
    if (impl.current) stop_attempt(*impl.current, StopReason::interrupted, std::move(reason));
  });
}

void Runner::write_stdin(std::string bytes) {
  asio::post(impl_->ioc, [&impl = *impl_, bytes = std::move(bytes)]() mutable {
    if (impl.current) write_attempt_stdin(*impl.current, std::move(bytes));
  });
}

void Runner::shutdown() noexcept {
  Impl& impl = *impl_;
  if (!impl.thread.joinable()) return;
  try {
    asio::post(impl.ioc, [&impl] {
      if (impl.current) kill_attempt(*impl.current);
      impl.current.reset();
      impl.ioc.stop();
    });
  } catch (...) {
    impl.ioc.stop();
  }
  impl.work.reset();
  impl.thread.join();
}

}  // namespace agentry::subprocess
