#include "mock/exec.hpp"

#include <chrono>
#include <system_error>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "agentry/plugin_common/environment.hpp"
#include "agentry/plugin_common/runtime/collect.hpp"

namespace agentry::mock {

namespace common = agentry::plugin_common;

ExecResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                       const std::string& cwd, const std::function<bool()>& should_stop, std::size_t limit) {
  ExecResult result;
  common::EnvironmentBuilder env = common::EnvironmentBuilder::inherited();
  for (const std::string& entry : extra_env) env.set_entry(entry);
  common::runtime::ChildSpec spec{{}, argv, env.take(), cwd};
  // A bare name is looked up in the child's PATH (the host puts its own directory
  // first), not in the daemon's.
  const common::ResolvedProgram program = common::resolve_program(argv.front(), spec.env, cwd);
  if (!program.error.empty()) {
    result.error = program.error;
    return result;
  }
  spec.program = program.path;
  spec.stderr_to_stdout = true;

  // The step's worker thread runs this child's I/O itself, then goes on with the script.
  boost::asio::io_context io(1);
  bool done = false;
  std::shared_ptr<common::runtime::Child> child;
  try {
    child = common::runtime::collect(io, std::move(spec), {}, limit + 1, [&](common::runtime::Collected collected) {
      done = true;
      result.output = std::move(collected.out);
      if (result.output.size() > limit) {
        result.output.resize(limit);
        result.truncated = true;
      }
      if (collected.status.exit_code) result.exit_code = *collected.status.exit_code;
      else if (collected.status.signal) result.exit_code = 128 + *collected.status.signal;
    });
  } catch (const std::system_error& e) {
    result.error = "cannot start " + argv[0] + (cwd.empty() ? "" : " in " + cwd) + ": " + e.code().message();
    return result;
  }
  // An interrupt of the run kills the whole group; the timer only looks at should_stop().
  boost::asio::steady_timer watch(io);
  std::function<void()> look = [&] {
    if (done) return;
    if (!result.stopped && should_stop()) {
      result.stopped = true;
      child->kill();
    }
    watch.expires_after(std::chrono::milliseconds(50));
    watch.async_wait([&](boost::system::error_code ec) {
      if (!ec) look();
    });
  };
  look();
  while (!done && io.run_one() > 0) {
  }
  watch.cancel();
  return result;
}

}  // namespace agentry::mock
