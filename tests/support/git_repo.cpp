#include "support/git_repo.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <stdexcept>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "support/socket_io.hpp"
#include "support/temp_dir.hpp"

namespace agentry::test {

namespace {

std::string join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out;
}

std::string trim_newlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

const EnvOverrides& git_env() {
  static const EnvOverrides env = {
      {"GIT_CONFIG_NOSYSTEM", "1"},
      {"GIT_CONFIG_GLOBAL", "/dev/null"},
      {"GIT_TERMINAL_PROMPT", "0"},
      {"LC_ALL", "C"},
  };
  return env;
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const EnvOverrides& env, std::chrono::milliseconds timeout) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(errno_message("pipe2", errno));
  UniqueFd out_read(fds[0]);
  UniqueFd out_write(fds[1]);
  ::fcntl(out_read.get(), F_SETFL, O_NONBLOCK);

  SpawnOptions options;
  options.argv = argv;
  options.env = environment_with(env);
  options.cwd = cwd;
  options.stdout_fd = out_write.get();
  options.stderr_fd = out_write.get();
  options.new_process_group = true;  // a timeout kills the command's children too
  const pid_t pid = spawn_process(options);
  out_write.reset();

  const auto deadline = Clock::now() + timeout;
  CommandResult result;
  std::array<char, 8192> buf{};
  for (;;) {
    const auto n = recv_some(out_read.get(), buf.data(), buf.size(), deadline);
    if (!n) {
      ::killpg(pid, SIGKILL);
      (void)wait_for_exit(pid, std::chrono::seconds(10));
      throw std::runtime_error("command timed out after " + std::to_string(timeout.count()) +
                               " ms and was killed: " + join(argv) + "\noutput: " + result.output);
    }
    if (*n == 0) break;  // every writer closed its end
    result.output.append(buf.data(), *n);
  }
  const auto code = wait_for_exit(pid, std::max(std::chrono::milliseconds(0),
                                                std::chrono::duration_cast<std::chrono::milliseconds>(
                                                    deadline - Clock::now())));
  if (!code) {
    ::killpg(pid, SIGKILL);
    (void)wait_for_exit(pid, std::chrono::seconds(10));
    throw std::runtime_error("command closed its output but did not exit within " +
                             std::to_string(timeout.count()) + " ms: " + join(argv));
  }
  result.exit_code = *code;
  return result;
}

GitRepo::GitRepo(std::filesystem::path dir, std::string branch) : dir_(std::move(dir)) {
  std::filesystem::create_directories(dir_);
  git({"init", "-q", "--initial-branch=" + branch});
  git({"config", "user.name", "Agentry Test"});
  git({"config", "user.email", "test@agentry.invalid"});
  git({"config", "commit.gpgsign", "false"});
}

CommandResult GitRepo::try_git(const std::vector<std::string>& args) const {
  std::vector<std::string> argv{"git"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, dir_, git_env());
}

std::string GitRepo::git(const std::vector<std::string>& args) const {
  auto result = try_git(args);
  if (result.exit_code != 0) {
    throw std::runtime_error("git " + join(args) + " failed in " + dir_.string() + " (exit " +
                             std::to_string(result.exit_code) + "): " + result.output);
  }
  return std::move(result.output);
}

std::filesystem::path GitRepo::write_file(const std::filesystem::path& relative,
                                          std::string_view content) const {
  if (relative.is_absolute()) {
    throw std::runtime_error("GitRepo::write_file: \"" + relative.string() + "\" must be relative");
  }
  const auto full = dir_ / relative;
  agentry::test::write_file(full, content);
  return full;
}

std::string GitRepo::commit_all(std::string_view message) const {
  git({"add", "-A"});
  git({"commit", "-q", "--allow-empty", "-m", std::string(message)});
  return head();
}

std::string GitRepo::commit_files(const std::vector<std::pair<std::string, std::string>>& files,
                                  std::string_view message) const {
  for (const auto& [relative, content] : files) write_file(relative, content);
  return commit_all(message);
}

std::string GitRepo::head() const { return trim_newlines(git({"rev-parse", "HEAD"})); }

}  // namespace agentry::test
