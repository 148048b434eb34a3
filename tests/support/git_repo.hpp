// Real git repositories for workspace tests, made with the git CLI.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/subprocess.hpp"

namespace agentry::test {

struct CommandResult {
  int exit_code = -1;  // 128 + signal if killed by a signal
  std::string output;  // stdout and stderr, interleaved
};

/// Runs argv (argv[0] looked up in PATH) in `cwd` (empty: inherit) with the current
/// environment plus `env`, capturing its output. Kills it and throws if it runs longer
/// than `timeout`; throws if it cannot be started. A non-zero exit is not an error here.
[[nodiscard]] CommandResult run_command(const std::vector<std::string>& argv,
                                        const std::filesystem::path& cwd = {},
                                        const EnvOverrides& env = {},
                                        std::chrono::milliseconds timeout = std::chrono::seconds(60));

/// A git repository in an existing or new directory. Git runs isolated from the user's and
/// system configuration; user.name/user.email are set in the repository's own config.
class GitRepo {
 public:
  /// `git init -q --initial-branch=<branch>` in `dir` (created if missing).
  explicit GitRepo(std::filesystem::path dir, std::string branch = "main");

  [[nodiscard]] const std::filesystem::path& path() const { return dir_; }

  /// Runs `git <args>` in the repository; returns the output, throws (quoting the command and
  /// its output) on a non-zero exit.
  std::string git(const std::vector<std::string>& args) const;
  /// Runs `git <args>`; a non-zero exit is returned, not thrown.
  [[nodiscard]] CommandResult try_git(const std::vector<std::string>& args) const;

  /// Writes path()/relative (creating parents) without staging it.
  std::filesystem::path write_file(const std::filesystem::path& relative,
                                   std::string_view content) const;
  /// `git add -A` and `git commit`; returns the new HEAD sha.
  std::string commit_all(std::string_view message) const;
  /// Writes the files, then commit_all().
  std::string commit_files(const std::vector<std::pair<std::string, std::string>>& files,
                           std::string_view message) const;
  /// The full sha of HEAD.
  [[nodiscard]] std::string head() const;

 private:
  std::filesystem::path dir_;
};

}  // namespace agentry::test
