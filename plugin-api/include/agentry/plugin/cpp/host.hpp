// agentry plugin C++ glue: Host, a wrapper over one instance's agentry_host_t.
//
// Optional and header-only. Nothing here crosses the ABI: it only calls the C table.
// Every member is noexcept, so it is safe to call from the plugin's own threads and
// from the glue's exception-guarded trampolines alike.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "agentry/plugin/ext/thread_check.h"
#include "agentry/plugin/plugin.h"

namespace agentry::plugin {

class Host {
 public:
  // Does not call the host: constructing a Host inside create_backend is allowed.
  explicit Host(const agentry_host_t* host) noexcept : host_(host) {}
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  const agentry_host_t* raw() const noexcept { return host_; }

  // [thread-safe] Emits one event, stamping seq and time_ns (steady clock).
  //
  // Seq assignment and the host call happen under one mutex: with a bare atomic
  // counter, two threads could take seq 5 and 6 and then reach the host as 6, 5,
  // breaking obligation 6. The host's emit only copies into a queue, so holding the
  // mutex across it is cheap. Every call consumes a seq, accepted or not: a host may
  // note the seq of an event it then refuses (BUSY), and a gap never breaks "strictly
  // increasing" while a reused number would.
  agentry_status_t emit(uint16_t type, uint32_t flags, std::string_view json) noexcept {
    std::lock_guard lock(emit_mutex_);
    agentry_event_t event{};
    event.struct_size = sizeof(agentry_event_t);
    event.type = type;
    event.flags = flags;
    event.seq = next_seq_.fetch_add(1, std::memory_order_relaxed);
    event.time_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count();
    event.payload_json = json.data();
    event.payload_size = json.size();
    return host_->emit(host_, &event);
  }

  // [thread-safe, plugin threads only: it sleeps] emit(), retrying AGENTRY_ERR_BUSY
  // with a short, growing pause (obligation 9) until `max_wait` has passed. Returns the
  // last status: AGENTRY_ERR_BUSY means the host stayed full for the whole wait.
  agentry_status_t emit_with_retry(uint16_t type, uint32_t flags, std::string_view json,
                                   std::chrono::milliseconds max_wait = std::chrono::seconds(30)) noexcept {
    const auto deadline = std::chrono::steady_clock::now() + max_wait;
    auto pause = std::chrono::microseconds(200);
    for (;;) {
      const agentry_status_t status = emit(type, flags, json);
      if (status != AGENTRY_ERR_BUSY || std::chrono::steady_clock::now() >= deadline) return status;
      std::this_thread::sleep_for(pause);
      pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(20));
    }
  }

  // [thread-safe] One line in the host's log (AGENTRY_LOG_*). Not from create_backend.
  void log(int32_t severity, std::string_view message) const noexcept {
    try {
      const std::string line(message);  // the C side wants NUL termination
      host_->log(host_, severity, line.c_str());
    } catch (...) {
      host_->log(host_, severity, "(log message lost: out of memory)");
    }
  }

  // [thread-safe] Asks for Backend::on_callback() on the control context. Repeated
  // requests before it runs merge into one.
  void request_callback() const noexcept { host_->request_callback(host_); }

  // [thread-safe] A host extension table by id, or nullptr. Not from create_backend.
  template <class Table>
  const Table* extension(const char* id) const noexcept {
    return static_cast<const Table*>(host_->get_extension(host_, id));
  }

  // [thread-safe] Whether the caller is on this instance's control context, or nullopt
  // when the host does not offer "agentry.thread-check/1" (or it was not fetched yet:
  // the glue fetches it in init(), the first call allowed to talk to the host).
  std::optional<bool> is_control_context() const noexcept {
    const auto* check = thread_check_.load(std::memory_order_acquire);
    if (check == nullptr || check->is_control_context == nullptr) return std::nullopt;
    return check->is_control_context(host_);
  }

  // The seq the next emit() will carry (for tests and logging).
  uint64_t next_seq() const noexcept { return next_seq_.load(std::memory_order_relaxed); }

  // Called by the glue from init(); plugin code has no need to call it.
  void fetch_extensions() noexcept {
    thread_check_.store(extension<agentry_host_thread_check_t>(AGENTRY_EXT_THREAD_CHECK),
                        std::memory_order_release);
  }

 private:
  const agentry_host_t* host_;
  std::mutex emit_mutex_;
  std::atomic<uint64_t> next_seq_{1};
  std::atomic<const agentry_host_thread_check_t*> thread_check_{nullptr};
};

}  // namespace agentry::plugin
