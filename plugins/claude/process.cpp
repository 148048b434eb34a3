#include "process.hpp"

#include <csignal>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <sys/wait.h>

#include "agentry/plugin_common/environment.hpp"
#include "agentry/plugin_common/spawn.hpp"

namespace agentry::claude {

namespace common = agentry::plugin_common;

ClaudeProcess::ClaudeProcess(const LaunchSpec& spec) {
  if (std::string error = common::check_workspace(spec.cwd); !error.empty()) throw std::runtime_error(error);
  const common::ResolvedProgram program = common::resolve_program(spec.argv.front(), spec.env, spec.cwd);
  if (!program.error.empty())
    throw std::runtime_error(program.error +
                             " (set backendConfig.binary or AGENTRY_CLAUDE_BIN to the native claude binary, e.g. "
                             "node_modules/@anthropic-ai/claude-code-linux-x64/claude)");
  common::Pipe in = common::make_pipe();
  common::Pipe out = common::make_pipe();
  common::Pipe err = common::make_pipe();
  common::SpawnRequest request{program.path, spec.argv, spec.env, spec.cwd, in.read.get(), out.write.get(),
                               err.write.get()};
  try {
    pid_ = common::spawn_in_new_group(request);
  } catch (const std::system_error& e) {
    throw std::runtime_error("cannot start '" + program.path + "': " + e.code().message());
  }
  // Our stdin end must never block the worker: Claude may stop reading while it works.
  ::fcntl(in.write.get(), F_SETFL, ::fcntl(in.write.get(), F_GETFL) | O_NONBLOCK);
  stdin_ = std::move(in.write);
  stdout_ = std::move(out.read);
  stderr_ = std::move(err.read);
}  // the child's pipe ends close here

ClaudeProcess::~ClaudeProcess() {
  if (pid_ > 0 && !status_) {
    common::kill_group(pid_, SIGKILL);
    int raw = 0;
    while (::waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
    }
  }
}

void ClaudeProcess::signal_group(int sig) const noexcept {
  // After the leader is reaped its pid may be reused: only SIGKILL of leftovers is safe
  // then, and only right after reaping (the attempt does that once).
  if (pid_ > 0 && !status_) common::kill_group(pid_, sig);
}

bool ClaudeProcess::poll_exit() noexcept {
  if (status_) return true;
  int raw = 0;
  if (!common::try_reap(pid_, raw)) return false;
  status_ = common::decode_wait_status(raw);
  common::kill_group(pid_, SIGKILL);  // commands Claude left running in its group
  return true;
}

}  // namespace agentry::claude
