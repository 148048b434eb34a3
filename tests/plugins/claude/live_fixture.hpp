// What the live tests need around the claude plugin: the real binary (found, never
// downloaded here), the loopback mock model, a loaded plugin instance with a recording
// host, and an isolated HOME per test.
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
#include "support/temp_dir.hpp"

namespace agentry::test {

// The native claude binary: $AGENTRY_CLAUDE_BIN, else the pinned install that
// scripts/install-agents.sh leaves in its cache. nullopt when neither exists.
std::optional<std::filesystem::path> find_claude_binary();

// tests/e2e/mock_model/server.py on 127.0.0.1 with an ephemeral port, logging every
// request body; stopped (SIGTERM, then SIGKILL) by the destructor.
class MockModel {
 public:
  explicit MockModel(const std::filesystem::path& log_dir);
  ~MockModel();
  MockModel(const MockModel&) = delete;
  MockModel& operator=(const MockModel&) = delete;

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // The bodies of the /v1/messages requests so far.
  std::vector<boost::json::object> message_requests() const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::filesystem::path log_;
};

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

// Whether process `pid` is still alive (a zombie counts as gone).
bool process_alive(long pid);

}  // namespace agentry::test
