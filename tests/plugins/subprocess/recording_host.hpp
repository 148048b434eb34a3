// A test host table: records what a plugin instance emits and logs, and checks the
// event rules of plugin.h (seq strictly increasing from 1, JSON object payloads, exactly one
// terminal FINISHED per attempt and nothing after it).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "agentry/plugin/ext/ask.h"
#include "agentry/plugin/plugin.h"

namespace agentry::test {

struct RecordedAnswer {
  std::string ask_id;
  boost::json::object answer;
};

struct RecordedEvent {
  uint16_t type = 0;
  uint32_t flags = 0;
  uint64_t seq = 0;
  boost::json::object payload;
};

class RecordingHost {
 public:
  RecordingHost();
  RecordingHost(const RecordingHost&) = delete;
  RecordingHost& operator=(const RecordingHost&) = delete;

  const agentry_host_t* table() const noexcept { return &table_; }

  // A new attempt may end with its own FINISHED (the harness calls this before start()).
  void begin_attempt();
  // The next `count` emits answer AGENTRY_ERR_BUSY (obligation 9).
  void answer_busy(int count);

  std::vector<RecordedEvent> events() const;
  std::vector<std::string> logs() const;
  std::vector<std::string> violations() const;  // broken rules, for EXPECT_THAT(..., IsEmpty())
  int finished_count() const;

  // Answers that arrived through the host extension "agentry.ask-answer/1" (ABI 1.2), which
  // the table offers; a second answer to one ask id is refused and counted as a violation.
  std::vector<RecordedAnswer> answers() const;
  bool wait_for_answers(std::size_t count, std::chrono::milliseconds limit) const;

  // Waits until `ready(events)` holds or `limit` passes; returns whether it held.
  bool wait_until(const std::function<bool(const std::vector<RecordedEvent>&)>& ready,
                  std::chrono::milliseconds limit) const;

 private:
  static agentry_status_t emit(const agentry_host_t* host, const agentry_event_t* event);
  static void log(const agentry_host_t* host, int32_t severity, const char* message);
  static void request_callback(const agentry_host_t* host);
  static const void* get_extension(const agentry_host_t* host, const char* id);
  static agentry_status_t answer(const agentry_host_t* host, const char* ask_id, const char* answer_json);

  agentry_host_t table_{};
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<RecordedEvent> events_;
  std::vector<std::string> logs_;
  std::vector<std::string> violations_;
  std::vector<RecordedAnswer> answers_;
  uint64_t next_seq_ = 1;  // the lowest seq the next accepted event may carry
  bool terminal_seen_ = false;
  int busy_left_ = 0;
  int finished_ = 0;
};

/// The backend factory of the plugin whose path is in the environment variable
/// `path_env` (ctest sets it): dlopen'd once and kept loaded for the process, its entry
/// checked and initialised. nullptr, with a test failure saying why, when unusable.
const agentry_backend_factory_t* load_backend_factory(const char* path_env);

}  // namespace agentry::test
