// What the real-binary tests need around the plugin: the pinned codex binary, the
// loopback mock model (tests/e2e/mock_model), an isolated CODEX_HOME, and an app-server
// started with --listen for the ws/uds transports. Every process started here is stopped
// (its whole process group) by the destructor.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

#include "support/temp_dir.hpp"

namespace agentry::test {

// $AGENTRY_CODEX_BIN, else the paths.env scripts/install-agents.sh wrote into its cache.
std::optional<std::string> codex_binary();

class MockModel {
 public:
  MockModel();  // python3 tests/e2e/mock_model/server.py --port 0
  ~MockModel();
  MockModel(const MockModel&) = delete;
  MockModel& operator=(const MockModel&) = delete;
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

// A CODEX_HOME with tests/e2e/fixtures/codex-config.toml pointed at `mock`.
class CodexHome {
 public:
  explicit CodexHome(const MockModel& mock);
  std::filesystem::path path() const { return dir_.path() / "codex-home"; }

 private:
  TempDir dir_;
};

// `codex app-server --listen ws://127.0.0.1:PORT` or `--listen unix://PATH`.
class AppServer {
 public:
  enum class Kind { ws, uds };
  AppServer(const std::string& binary, const CodexHome& home, Kind kind);
  ~AppServer();
  AppServer(const AppServer&) = delete;
  AppServer& operator=(const AppServer&) = delete;
  const std::string& url() const { return url_; }        // ws://127.0.0.1:PORT
  const std::string& socket() const { return socket_; }  // the unix socket path
  pid_t pid() const { return pid_; }

 private:
  TempDir dir_;
  pid_t pid_ = -1;
  std::string url_, socket_;
};

// The environment the plugin's child needs (added to the start params' env).
inline constexpr const char* kMockKeyEnv = "MOCK_API_KEY=dummy";

}  // namespace agentry::test
