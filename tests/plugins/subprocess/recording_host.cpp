#include "recording_host.hpp"

#include <cstdlib>

#include <dlfcn.h>
#include <gtest/gtest.h>

namespace agentry::test {

namespace json = boost::json;

const agentry_backend_factory_t* load_backend_factory(const char* path_env) {
  const char* path = std::getenv(path_env);
  if (path == nullptr) {
    ADD_FAILURE() << path_env << " is not set (ctest sets it)";
    return nullptr;
  }
  void* library = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);  // kept loaded for the process
  if (library == nullptr) {
    ADD_FAILURE() << "dlopen(" << path << "): " << ::dlerror();
    return nullptr;
  }
  const auto* entry = static_cast<const agentry_plugin_entry_t*>(::dlsym(library, AGENTRY_PLUGIN_ENTRY_SYMBOL));
  if (entry == nullptr || !agentry_version_is_compatible(entry->abi_version) || !entry->init(path)) {
    ADD_FAILURE() << "no usable agentry_plugin_entry in " << path;
    return nullptr;
  }
  return static_cast<const agentry_backend_factory_t*>(entry->get_factory(AGENTRY_BACKEND_FACTORY_ID));
}

RecordingHost::RecordingHost() {
  table_.abi_version = AGENTRY_PLUGIN_ABI_VERSION_INIT;
  table_.host_data = this;
  table_.name = "agentry-test";
  table_.version = "0.0.0";
  table_.emit = &RecordingHost::emit;
  table_.log = &RecordingHost::log;
  table_.request_callback = &RecordingHost::request_callback;
  table_.get_extension = &RecordingHost::get_extension;
}

void RecordingHost::begin_attempt() {
  std::lock_guard lock(mutex_);
  terminal_seen_ = false;
}

void RecordingHost::answer_busy(int count) {
  std::lock_guard lock(mutex_);
  busy_left_ = count;
}

std::vector<RecordedEvent> RecordingHost::events() const {
  std::lock_guard lock(mutex_);
  return events_;
}

std::vector<std::string> RecordingHost::logs() const {
  std::lock_guard lock(mutex_);
  return logs_;
}

std::vector<std::string> RecordingHost::violations() const {
  std::lock_guard lock(mutex_);
  return violations_;
}

int RecordingHost::finished_count() const {
  std::lock_guard lock(mutex_);
  return finished_;
}

bool RecordingHost::wait_until(const std::function<bool(const std::vector<RecordedEvent>&)>& ready,
                               std::chrono::milliseconds limit) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, limit, [&] { return ready(events_); });
}

agentry_status_t RecordingHost::emit(const agentry_host_t* host, const agentry_event_t* event) {
  auto& self = *static_cast<RecordingHost*>(host->host_data);
  std::lock_guard lock(self.mutex_);
  if (self.busy_left_ > 0) {
    --self.busy_left_;
    return AGENTRY_ERR_BUSY;
  }
  const auto violation = [&](std::string what) {
    self.violations_.push_back(what + " (event type " + std::to_string(event->type) + ")");
  };
  if (self.terminal_seen_) {
    violation("event after the terminal event");
    return AGENTRY_ERR_INVALID_STATE;
  }
  // Strictly increasing from 1; a refused (BUSY) event may have used up a seq.
  if (event->seq < self.next_seq_)
    violation("seq " + std::to_string(event->seq) + ", expected at least " + std::to_string(self.next_seq_));
  const bool terminal = (event->flags & AGENTRY_EVENT_FLAG_TERMINAL) != 0;
  if (terminal != (event->type == AGENTRY_EVENT_FINISHED)) violation("terminal flag and FINISHED disagree");
  if (event->payload_size > AGENTRY_EVENT_MAX_PAYLOAD_BYTES) return AGENTRY_ERR_TOO_LARGE;
  boost::system::error_code ec;
  json::value payload = json::parse(std::string_view(event->payload_json, event->payload_size), ec);
  if (ec || !payload.is_object()) {
    violation("payload is not a JSON object: " + std::string(event->payload_json, event->payload_size));
    return AGENTRY_ERR_INVALID_ARGUMENT;
  }
  self.next_seq_ = event->seq + 1;
  self.terminal_seen_ = terminal;
  if (event->type == AGENTRY_EVENT_FINISHED) ++self.finished_;
  self.events_.push_back(RecordedEvent{event->type, event->flags, event->seq, std::move(payload.get_object())});
  self.changed_.notify_all();
  return AGENTRY_OK;
}

void RecordingHost::log(const agentry_host_t* host, int32_t severity, const char* message) {
  auto& self = *static_cast<RecordingHost*>(host->host_data);
  std::lock_guard lock(self.mutex_);
  self.logs_.push_back(std::to_string(severity) + " " + (message != nullptr ? message : "(null)"));
}

void RecordingHost::request_callback(const agentry_host_t*) {}

std::vector<RecordedAnswer> RecordingHost::answers() const {
  std::lock_guard lock(mutex_);
  return answers_;
}

bool RecordingHost::wait_for_answers(std::size_t count, std::chrono::milliseconds limit) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, limit, [&] { return answers_.size() >= count; });
}

agentry_status_t RecordingHost::answer(const agentry_host_t* host, const char* ask_id, const char* answer_json) {
  auto& self = *static_cast<RecordingHost*>(host->host_data);
  if (ask_id == nullptr || answer_json == nullptr) return AGENTRY_ERR_INVALID_ARGUMENT;
  boost::system::error_code ec;
  json::value parsed = json::parse(answer_json, ec);
  std::lock_guard lock(self.mutex_);
  if (ec || !parsed.is_object()) {
    self.violations_.push_back(std::string("ask answer is not a JSON object: ") + answer_json);
    return AGENTRY_ERR_INVALID_ARGUMENT;
  }
  for (const auto& a : self.answers_)
    if (a.ask_id == ask_id) {
      self.violations_.push_back(std::string("second answer to ask ") + ask_id);
      return AGENTRY_ERR_INVALID_STATE;
    }
  self.answers_.push_back(RecordedAnswer{ask_id, std::move(parsed.get_object())});
  self.changed_.notify_all();
  return AGENTRY_OK;
}

const void* RecordingHost::get_extension(const agentry_host_t*, const char* id) {
  static constexpr agentry_host_ask_answer_t kAskAnswer{sizeof(agentry_host_ask_answer_t), &RecordingHost::answer};
  if (id != nullptr && std::string_view(id) == AGENTRY_EXT_ASK_ANSWER) return &kAskAnswer;
  return nullptr;
}

}  // namespace agentry::test
