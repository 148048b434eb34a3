// Codex around the mock model: an isolated CODEX_HOME whose config.toml points at a
// MockModel, and `codex app-server --listen` for the ws/uds transports. Every process
// started here is stopped (its whole process group) by the destructor.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

#include "support/temp_dir.hpp"

namespace agentry::test {

class MockModel;

/// The provider of tests/e2e/fixtures/codex-config.toml reads its API key from this variable.
inline constexpr const char* kMockKeyName = "MOCK_API_KEY";
inline constexpr const char* kMockKeyValue = "dummy";
inline constexpr const char* kMockKeyEnv = "MOCK_API_KEY=dummy";

/// A CODEX_HOME with tests/e2e/fixtures/codex-config.toml pointed at `mock`.
class CodexHome {
 public:
  explicit CodexHome(const MockModel& mock);
  [[nodiscard]] std::filesystem::path path() const { return dir_.path() / "codex-home"; }

 private:
  TempDir dir_;
};

/// `codex app-server --listen ws://127.0.0.1:PORT` or `--listen unix://PATH`, with `home` as
/// CODEX_HOME; ready (accepting connections) when the constructor returns.
class AppServer {
 public:
  enum class Kind { ws, uds };
  AppServer(const std::filesystem::path& binary, const CodexHome& home, Kind kind);
  ~AppServer();
  AppServer(const AppServer&) = delete;
  AppServer& operator=(const AppServer&) = delete;
  [[nodiscard]] const std::string& url() const { return url_; }        // ws://127.0.0.1:PORT
  [[nodiscard]] const std::string& socket() const { return socket_; }  // the unix socket path
  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  TempDir dir_;
  pid_t pid_ = -1;
  std::string url_, socket_;
};

}  // namespace agentry::test
