// A host table for driving plugins through the C ABI in tests: it checks and records
// every event the way the daemon would, and can answer BUSY on purpose.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "agentry/plugin/plugin.h"

namespace agentry::abi_test {

struct RecordedEvent {
  uint16_t type = 0;
  uint32_t flags = 0;
  uint64_t seq = 0;
  int64_t time_ns = 0;
  boost::json::value payload;  // parsed

  const boost::json::object& object() const { return payload.as_object(); }
  std::string str(const char* key) const;  // a string member, "" when absent
};

class TestHost {
 public:
  TestHost();
  TestHost(const TestHost&) = delete;
  TestHost& operator=(const TestHost&) = delete;

  const agentry_host_t* table() const { return &host_; }

  // A new attempt begins: events are accepted again after the last terminal one.
  void begin_attempt();

  // Every nth emit() answers AGENTRY_ERR_BUSY without keeping the event (0: never).
  void set_busy_every(unsigned n);

  std::vector<RecordedEvent> events() const;
  std::vector<std::string> logs() const;
  unsigned rejected() const;  // emits answered with an error other than BUSY
  unsigned busy_answers() const;

  // Waits until `ready(events)` holds; false on timeout.
  bool wait_until(const std::function<bool(const std::vector<RecordedEvent>&)>& ready,
                  std::chrono::milliseconds timeout = std::chrono::seconds(10)) const;
  // Waits for the terminal event and returns its outcome ("" on timeout).
  std::string wait_outcome(std::chrono::milliseconds timeout = std::chrono::seconds(10)) const;
  // Waits for an event of `type`; returns a copy, or a default RecordedEvent on timeout.
  RecordedEvent wait_event(uint16_t type, std::chrono::milliseconds timeout = std::chrono::seconds(10)) const;

 private:
  static TestHost& self(const agentry_host_t* h) { return *static_cast<TestHost*>(h->host_data); }
  static agentry_status_t emit(const agentry_host_t* h, const agentry_event_t* e) noexcept;
  static void log(const agentry_host_t* h, int32_t severity, const char* message) noexcept;
  static void request_callback(const agentry_host_t* h) noexcept;
  static const void* get_extension(const agentry_host_t* h, const char* id) noexcept;
  agentry_status_t accept(const agentry_event_t* e);

  agentry_host_t host_{};
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<RecordedEvent> events_;
  std::vector<std::string> logs_;
  unsigned busy_every_ = 0;
  unsigned calls_ = 0;
  unsigned rejected_ = 0;
  unsigned busy_ = 0;
  bool terminal_ = false;
};

// The payload's "outcome" of the FINISHED event in `events`, or "".
std::string outcome_of(const std::vector<RecordedEvent>& events);

}  // namespace agentry::abi_test
