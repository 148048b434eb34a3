// What the live tests need around the claude plugin: a loaded plugin instance with a
// recording host, run with an isolated HOME. The real binary, the loopback mock model and
// process_alive() come from tests/support (agent_binaries, mock_model, subprocess).
#pragma once

#include <chrono>
#include <filesystem>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>
#include <sys/types.h>

#include "agentry/plugin/plugin.h"
#include "recording_host.hpp"
#include "support/agent_binaries.hpp"
#include "support/mock_model.hpp"
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

namespace agentry::test {

struct Turn {
  Turn(std::string text, bool unrestricted_run = true) : prompt(std::move(text)), unrestricted(unrestricted_run) {}
  std::string prompt;
  bool unrestricted = true;
  std::string resume_token;
  std::string model;
  std::vector<std::string> command;  // replaces the binary (a stand-in process)
  int64_t timeout_sec = 0;
  int64_t interrupt_grace_ms = -1;  // -1: the plugin's default
};

// One claude backend instance through the C ABI (create_backend + init), run against
// `model` with HOME in its own temporary directory.
class ClaudeInstance {
 public:
  ClaudeInstance(const std::filesystem::path& binary, std::string base_url, const std::filesystem::path& home);
  ~ClaudeInstance();  // destroy(); fails the test on an event-rule violation
  ClaudeInstance(const ClaudeInstance&) = delete;
  ClaudeInstance& operator=(const ClaudeInstance&) = delete;

  agentry_status_t start(const Turn& turn);
  agentry_status_t interrupt(const char* reason = "test");
  agentry_status_t send_message(std::string_view text);
  agentry_status_t answer(std::string_view approval_id, std::string_view decision);
  void destroy();

  boost::json::object wait_finished(std::chrono::seconds limit = std::chrono::seconds(60));
  // The first event of `type` whose serialized payload contains `text`, waiting for it.
  std::optional<RecordedEvent> wait_for(uint16_t type, std::string_view text = {},
                                        std::chrono::seconds limit = std::chrono::seconds(60));
  std::vector<RecordedEvent> events_of(uint16_t type) const;
  std::string dump() const;  // every event, for failure messages
  // The pid of the claude child, from the plugin's "started pid N" log line (0: none yet).
  long child_pid() const;

  RecordingHost& host() noexcept { return host_; }
  const std::filesystem::path& workspace() const noexcept { return workspace_.path(); }

 private:
  RecordingHost host_;
  TempDir workspace_;
  std::filesystem::path binary_;
  std::string base_url_;
  std::filesystem::path home_;
  const agentry_backend_t* backend_ = nullptr;
  int finished_before_ = 0;
};

}  // namespace agentry::test
