#pragma once
// The real `agentry` binary as a CLI, run as a child process with its own home and
// config directories, in either mode: embedded (no daemon) or connected to a daemon
// the fixture starts. Tests written against CliTest run in both modes (TEST_P), so
// both must behave the same.

#include "support/daemon_process.hpp"
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentry::integration {

enum class CliMode { embedded, connected };

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

/// A CLI process still running.
struct CliProcess {
  pid_t pid = -1;
  std::filesystem::path out;
  std::filesystem::path err;
};

class CliTest : public ::testing::TestWithParam<CliMode> {
 protected:
  void SetUp() override;
  void TearDown() override;

  bool connected() const { return GetParam() == CliMode::connected; }
  /// Starts (or restarts) the daemon with `env` added; CLI calls then connect to it.
  void start_daemon(test::EnvOverrides env = {});

  /// The environment of a CLI call: this test's home and config, nothing inherited from
  /// a surrounding run, AGENTRY_CONNECT set in connected mode; `extra` last.
  test::EnvOverrides cli_env(const test::EnvOverrides& extra = {}) const;
  /// Runs `agentry <args>` in work_ and waits (hang guard: `timeout`, then killed).
  CliResult cli(const std::vector<std::string>& args, const test::EnvOverrides& extra = {},
                std::chrono::milliseconds timeout = std::chrono::seconds(90));
  /// The same with `input` on its standard input (otherwise /dev/null).
  CliResult cli_with_input(const std::vector<std::string>& args, const std::string& input);
  CliProcess cli_start(const std::vector<std::string>& args, const test::EnvOverrides& extra = {},
                       const std::optional<std::string>& input = std::nullopt);
  CliResult cli_wait(CliProcess& process, std::chrono::milliseconds timeout = std::chrono::seconds(90));

  /// `show <run> --json`'s run object.
  boost::json::object show(const std::string& run_id);
  /// Polls `show` until `pred` holds (hang guard 30 s).
  boost::json::object wait_for_run(const std::string& run_id, const std::function<bool(const boost::json::object&)>& pred);
  /// The run as the API shows it: the daemon's GET /api/runs/:id when connected, else
  /// `show --json` (embedded, the CLI process is the API).
  boost::json::object api_run(const std::string& run_id);
  /// The types of the run's audit records, in order (`audit --json`).
  std::vector<std::string> audit_types(const std::string& run_id);
  /// `list --global --all --json`'s runs.
  boost::json::array all_runs();

  /// agents/<name>/agent.md with `backend` and backendConfig.<backend> = `config` (YAML flow).
  void write_agent(const std::string& name, const std::string& backend, const std::string& config,
                   const std::string& extra_front_matter = "");
  /// The mock step that runs this agentry binary with `args`, as YAML flow.
  static std::string exec_agentry(const std::vector<std::string>& args);

  test::TempDir dir_;
  std::filesystem::path home_;
  std::filesystem::path config_;
  std::filesystem::path work_;
  /// The program CLI calls run; empty: the agentry binary (a test may name its
  /// `agent-runner` link instead).
  std::filesystem::path program_;
  std::unique_ptr<test::DaemonProcess> daemon_;
  std::string ws_url_;
  int calls_ = 0;
};

std::string mode_name(const ::testing::TestParamInfo<CliMode>& info);

}  // namespace agentry::integration
