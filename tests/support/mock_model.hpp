// The loopback mock model (tests/e2e/mock_model/server.py): the OpenAI Responses API for
// Codex and the Anthropic Messages API for Claude Code, scripted by directives in the
// prompt (SAY:, SHELL:, TOOL:, STALL:, FAIL:; see tests/e2e/README.md).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

namespace agentry::test {

class MockModel {
 public:
  /// Starts `python3 server.py --port 0` on 127.0.0.1 in a process group of its own (killed
  /// with the test process, too), appending every request to `request_log` (JSONL) when it
  /// is not empty, and waits for its "listening on 127.0.0.1:<port>" line. Throws if the
  /// server does not start.
  explicit MockModel(std::filesystem::path request_log = {});
  /// Stops the server's group (SIGTERM, then SIGKILL).
  ~MockModel();
  MockModel(const MockModel&) = delete;
  MockModel& operator=(const MockModel&) = delete;

  [[nodiscard]] int port() const { return port_; }
  /// ANTHROPIC_BASE_URL for Claude Code: "http://127.0.0.1:<port>" (no /v1).
  [[nodiscard]] std::string anthropic_base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  /// The OpenAI provider base URL for Codex: "http://127.0.0.1:<port>/v1".
  [[nodiscard]] std::string openai_base_url() const { return anthropic_base_url() + "/v1"; }

  /// The JSON bodies of the logged requests whose path contains `path_part` ("/responses",
  /// "/messages"), oldest first. Empty without a request log.
  [[nodiscard]] std::vector<boost::json::object> request_bodies(std::string_view path_part) const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::filesystem::path log_;
};

}  // namespace agentry::test
