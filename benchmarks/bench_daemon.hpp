#pragma once
// The daemon a load driver measures. By default a child process on a fresh home with the
// benchmark definitions (benchmarks/config). With AGENTRY_BENCH_DAEMON=http://host:port
// it is the daemon already serving there, on another machine say, which must serve the
// same definitions (benchmarks/README.md, Remote daemon); AGENTRY_DAEMON_TOKEN, if set,
// goes with every request as the bearer token. What needs the daemon's /proc (CPU time,
// memory) is only measured on a local one.

#include "keep_alive_connection.hpp"
#include "support/daemon_process.hpp"
#include "support/http_client.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentry::bench {

/// The definitions the daemon-driving programs use (agents worker and streamer, the
/// assignment feature): $AGENTRY_BENCH_CONFIG_DIR, else benchmarks/config of the source tree.
std::filesystem::path bench_config_dir();

struct BenchDaemonOptions {
  // Defaults on every member: designated initializers may name only some.
  std::filesystem::path home{};        // a local daemon's AGENTRY_HOME (a temp dir)
  std::filesystem::path config_dir{};  // empty: bench_config_dir()
  std::vector<std::pair<std::string, std::string>> env{};  // a local daemon's extra environment
};

class BenchDaemon {
 public:
  /// Starts a local daemon unless AGENTRY_BENCH_DAEMON names one. Throws when the local
  /// one does not start or the variable is not http://host:port.
  explicit BenchDaemon(BenchDaemonOptions options);

  [[nodiscard]] bool remote() const { return process_ == nullptr; }
  [[nodiscard]] const std::string& host() const { return host_; }
  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] const std::string& token() const { return token_; }
  /// The local daemon's process id (nullopt when remote).
  [[nodiscard]] std::optional<pid_t> pid() const;
  /// The local daemon (nullptr when remote).
  [[nodiscard]] test::DaemonProcess* process() { return process_.get(); }

  [[nodiscard]] test::HttpClient client() const;
  /// One sample of the daemon's GET /metrics, e.g. `agentry_live_runs` or
  /// `agentry_timeline_events_total{persistence="durable"}`. Throws when it has none.
  [[nodiscard]] double metric(const std::string& sample) const;
  [[nodiscard]] KeepAliveConnection connect() const { return KeepAliveConnection(host_, port_, token_); }
  /// A directory runs may name as their callerCwd: <home>/work locally; remotely
  /// $AGENTRY_BENCH_CWD, else /tmp (it must exist on the daemon's machine).
  [[nodiscard]] const std::string& caller_cwd() const { return caller_cwd_; }

 private:
  std::unique_ptr<test::DaemonProcess> process_;
  std::string host_;
  std::uint16_t port_ = 0;
  std::string token_;
  std::string caller_cwd_;
};

/// AGENTRY_BENCH_DAEMON as {host, port}; nullopt when unset or empty. Throws when it is
/// not http://host:port.
std::optional<std::pair<std::string, std::uint16_t>> remote_daemon();

}  // namespace agentry::bench
