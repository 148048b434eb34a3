#include "abi/test_host.hpp"

#include <boost/json/parse.hpp>

namespace agentry::abi_test {

std::string RecordedEvent::str(const char* key) const {
  if (!payload.is_object()) return {};
  const auto* v = payload.as_object().if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

TestHost::TestHost() {
  host_.abi_version = AGENTRY_PLUGIN_ABI_VERSION_INIT;
  host_.host_data = this;
  host_.name = "agentry-abi-tests";
  host_.version = "0.0.0";
  host_.emit = &TestHost::emit;
  host_.log = &TestHost::log;
  host_.request_callback = &TestHost::request_callback;
  host_.get_extension = &TestHost::get_extension;
}

void TestHost::begin_attempt() {
  std::lock_guard lock(mutex_);
  terminal_ = false;
}

void TestHost::set_busy_every(unsigned n) {
  std::lock_guard lock(mutex_);
  busy_every_ = n;
}

agentry_status_t TestHost::emit(const agentry_host_t* h, const agentry_event_t* e) noexcept {
  try {
    return self(h).accept(e);
  } catch (...) {
    return AGENTRY_ERR_INTERNAL;
  }
}

// The same checks as the daemon's emit(), in the same order.
agentry_status_t TestHost::accept(const agentry_event_t* e) {
  std::lock_guard lock(mutex_);
  ++calls_;
  const bool terminal = (e->flags & AGENTRY_EVENT_FLAG_TERMINAL) != 0;
  boost::json::error_code ec;
  boost::json::value payload = boost::json::parse(std::string_view(e->payload_json, e->payload_size), ec);
  agentry_status_t status = AGENTRY_OK;
  if (e->struct_size < sizeof(agentry_event_t)) status = AGENTRY_ERR_INVALID_ARGUMENT;
  else if (e->payload_size > AGENTRY_EVENT_MAX_PAYLOAD_BYTES) status = AGENTRY_ERR_TOO_LARGE;
  else if (terminal != (e->type == AGENTRY_EVENT_FINISHED)) status = AGENTRY_ERR_INVALID_ARGUMENT;
  else if (terminal_) status = AGENTRY_ERR_INVALID_STATE;
  else if (ec || !payload.is_object()) status = AGENTRY_ERR_INVALID_ARGUMENT;
  else if (busy_every_ != 0 && calls_ % busy_every_ == 0) status = AGENTRY_ERR_BUSY;
  if (status == AGENTRY_ERR_BUSY) ++busy_;
  else if (status != AGENTRY_OK) ++rejected_;
  if (status != AGENTRY_OK) return status;
  events_.push_back(RecordedEvent{e->type, e->flags, e->seq, e->time_ns, std::move(payload)});
  terminal_ = terminal_ || terminal;
  changed_.notify_all();
  return AGENTRY_OK;
}

void TestHost::log(const agentry_host_t* h, int32_t severity, const char* message) noexcept {
  try {
    TestHost& s = self(h);
    std::lock_guard lock(s.mutex_);
    s.logs_.push_back(std::to_string(severity) + " " + (message ? message : ""));
  } catch (...) {
  }
}

void TestHost::request_callback(const agentry_host_t*) noexcept {}
const void* TestHost::get_extension(const agentry_host_t*, const char*) noexcept { return nullptr; }

std::vector<RecordedEvent> TestHost::events() const {
  std::lock_guard lock(mutex_);
  return events_;
}
std::vector<std::string> TestHost::logs() const {
  std::lock_guard lock(mutex_);
  return logs_;
}
unsigned TestHost::rejected() const {
  std::lock_guard lock(mutex_);
  return rejected_;
}
unsigned TestHost::busy_answers() const {
  std::lock_guard lock(mutex_);
  return busy_;
}

bool TestHost::wait_until(const std::function<bool(const std::vector<RecordedEvent>&)>& ready,
                          std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return ready(events_); });
}

std::string TestHost::wait_outcome(std::chrono::milliseconds timeout) const {
  std::string outcome;
  wait_until([&](const auto& events) { return !(outcome = outcome_of(events)).empty(); }, timeout);
  return outcome;
}

RecordedEvent TestHost::wait_event(uint16_t type, std::chrono::milliseconds timeout) const {
  RecordedEvent found;
  wait_until(
      [&](const auto& events) {
        for (const auto& e : events)
          if (e.type == type) return found = e, true;
        return false;
      },
      timeout);
  return found;
}

std::string outcome_of(const std::vector<RecordedEvent>& events) {
  for (const auto& e : events)
    if (e.type == AGENTRY_EVENT_FINISHED) return e.str("outcome");
  return {};
}

}  // namespace agentry::abi_test
