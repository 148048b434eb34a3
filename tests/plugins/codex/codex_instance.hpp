// Drives the built codex plugin through its C ABI: dlopen() of AGENTRY_CODEX_PLUGIN (set
// by ctest), one backend instance per CodexInstance, events recorded by RecordingHost
// (tests/plugins/subprocess), which also checks seq, payload and terminal rules.
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "agentry/plugin/ext/detach.h"
#include "agentry/plugin/plugin.h"
#include "recording_host.hpp"
#include "support/temp_dir.hpp"

namespace agentry::test {

struct CodexStart {
  std::string prompt;
  boost::json::object backend;  // backendConfig
  bool unrestricted = false;
  std::string resume_token;
  boost::json::value launcher;  // null, or {"name","command","env"}
  int64_t timeout_sec = 0;
  boost::json::value checkpoint;  // adopt(): the adopted attempt's last CHECKPOINT payload
};

class CodexInstance {
 public:
  CodexInstance();   // create_backend("codex") + init()
  ~CodexInstance();  // destroy() unless done already
  CodexInstance(const CodexInstance&) = delete;
  CodexInstance& operator=(const CodexInstance&) = delete;

  agentry_status_t start(const CodexStart& start);
  // Through the instance's "agentry.detach/1" extension (ext/detach.h).
  agentry_status_t adopt(const CodexStart& start);
  agentry_status_t detach(const char* reason = "test");
  agentry_status_t interrupt(const char* reason = "test");
  agentry_status_t send_input(uint32_t kind, const std::string& payload_json);
  void destroy();

  // The attempt's FINISHED payload (the test fails after `limit`).
  boost::json::object wait_finished(std::chrono::seconds limit = std::chrono::seconds(60));
  // The first event of `type` (waiting up to `limit`), or an empty object.
  boost::json::object wait_for(uint16_t type, std::chrono::seconds limit = std::chrono::seconds(60));

  std::vector<RecordedEvent> events_of(uint16_t type) const;
  RecordingHost& host() noexcept { return host_; }
  const TempDir& workspace() const noexcept { return workspace_; }

 private:
  agentry_status_t begin(const CodexStart& start, bool adopt);
  const agentry_backend_detach_t* detach_table() const;

  RecordingHost host_;
  TempDir workspace_;
  const agentry_backend_t* backend_ = nullptr;
  int finished_before_ = 0;
};

}  // namespace agentry::test
