// Runs the real `agentry serve` binary as a child process for integration tests.
#pragma once

#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

#include "support/http_client.hpp"

namespace agentry::test {

struct DaemonOptions {
  // Every member has a default so designated initializers may name only some of them:
  // DaemonProcess daemon({.home = dir.path(), .env = {{"AGENTRY_TOKEN", "t"}}});
  std::filesystem::path home{};        // AGENTRY_HOME; required; created if missing; logs go here
  std::filesystem::path config_dir{};  // AGENTRY_CONFIG_DIR; empty: <home>/config (created)
  std::vector<std::pair<std::string, std::string>> env{};  // extra/overriding environment
  std::vector<std::string> extra_args{};                   // appended after the listen argument
  std::filesystem::path binary{};      // empty: DaemonProcess::binary_path()
  std::chrono::milliseconds startup_timeout{20'000};
  /// How often start() looks for the ready line (a read of a small file): often, since
  /// every test waits for it; a benchmark timing the start-up polls finer.
  std::chrono::microseconds ready_poll{2'000};
  /// PR_SET_PDEATHSIG: the daemon is SIGKILLed if the thread that called start() exits (so a
  /// crashed or killed test binary leaves no daemon behind). Turn off when starting from a
  /// short-lived thread.
  bool die_with_test_process = true;
};

class DaemonProcess {
 public:
  /// $AGENTRY_BIN. Throws (failing the calling test) with a message saying how to set it when it
  /// is unset or not an executable file.
  [[nodiscard]] static std::filesystem::path binary_path();

  explicit DaemonProcess(DaemonOptions options);
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;
  /// SIGKILLs the daemon and anything left in its process group, and reaps it.
  ~DaemonProcess();

  /// Runs `agentry serve --listen ws://127.0.0.1:0/ <extra_args>` in its own process group with
  /// AGENTRY_HOME/AGENTRY_CONFIG_DIR set, stdout/stderr appended to <home>/daemon-stdout.log and
  /// <home>/daemon-stderr.log, and waits for "http api on http://127.0.0.1:<port>/api/"
  /// (noting "serving on unix://<path>" before it).
  /// Throws if the daemon exits first (with its exit code and stderr) or on timeout (it is then
  /// killed). May be called again after stop()/kill9() to restart on the same home.
  void start();

  /// The HTTP API port / the WebSocket port announced at startup. Throw if not started.
  [[nodiscard]] std::uint16_t port() const;
  [[nodiscard]] std::uint16_t ws_port() const;
  /// A client for 127.0.0.1:port().
  [[nodiscard]] HttpClient client() const;
  /// "http://127.0.0.1:<port>".
  [[nodiscard]] std::string base_url() const;
  /// The Unix socket announced at startup ("serving on unix://<path>"); empty when the
  /// daemon listens on none.
  [[nodiscard]] const std::filesystem::path& socket_path() const { return socket_path_; }
  /// A client for the Unix socket. Throws if the daemon announced none.
  [[nodiscard]] HttpClient socket_client() const;
  /// A client for the listener that speaks agent-runner's wire (AGENTRY_COMPAT_LISTEN).
  /// Throws if the daemon announced none.
  [[nodiscard]] HttpClient compat_client() const;
  [[nodiscard]] std::uint16_t compat_port() const { return compat_port_; }

  /// Sends `signal` and waits up to `timeout` for the exit; returns the exit code (128 + signal
  /// number if killed by a signal). If the daemon does not exit in time it is SIGKILLed and
  /// std::runtime_error is thrown. If it had already exited, returns that exit code.
  int stop(int signal = SIGTERM, std::chrono::milliseconds timeout = std::chrono::seconds(20));
  /// SIGKILL to the daemon alone (a crash: its children live on until this object is
  /// destroyed), then reaps it.
  void kill9();

  /// True while the daemon process has not exited (reaps it if it has).
  [[nodiscard]] bool running();
  /// The exit code once the daemon has been reaped.
  [[nodiscard]] std::optional<int> exit_code() const { return exit_code_; }
  [[nodiscard]] pid_t pid() const { return pid_; }

  /// What the daemon wrote since the last start().
  [[nodiscard]] std::string stdout_text() const;
  [[nodiscard]] std::string stderr_text() const;
  [[nodiscard]] std::filesystem::path stdout_path() const { return options_.home / "daemon-stdout.log"; }
  [[nodiscard]] std::filesystem::path stderr_path() const { return options_.home / "daemon-stderr.log"; }
  [[nodiscard]] const DaemonOptions& options() const { return options_; }

 private:
  void wait_for_ready();
  void kill_group() noexcept;
  [[nodiscard]] std::string describe_output() const;

  DaemonOptions options_;
  pid_t pid_ = -1;
  bool reaped_ = true;
  std::optional<int> exit_code_;
  std::uint16_t port_ = 0;
  std::uint16_t ws_port_ = 0;
  std::filesystem::path socket_path_;
  std::uint16_t compat_port_ = 0;
  std::uintmax_t stdout_offset_ = 0;  // log sizes at start(): output of this run begins there
  std::uintmax_t stderr_offset_ = 0;
  std::vector<pid_t> groups_;  // process groups of every start(), killed at destruction
};

}  // namespace agentry::test
