#include "mock/exec.hpp"

#include <system_error>

#include "agentry/plugin_common/environment.hpp"
#include "agentry/plugin_common/runtime/collect.hpp"

namespace agentry::mock {

namespace common = agentry::plugin_common;

std::shared_ptr<common::runtime::Child> start_process(const boost::asio::any_io_executor& io, const std::vector<std::string>& argv,
                                                      const std::vector<std::string>& extra_env,
                                                      const std::string& cwd, std::function<void(ExecResult)> done,
                                                      std::size_t limit) {
  common::EnvironmentBuilder env = common::EnvironmentBuilder::inherited();
  for (const std::string& entry : extra_env) env.set_entry(entry);
  common::runtime::ChildSpec spec{{}, argv, env.take(), cwd};
  // A bare name is looked up in the child's PATH (the host puts its own directory
  // first), not in the daemon's.
  const common::ResolvedProgram program = common::resolve_program(argv.front(), spec.env, cwd);
  if (!program.error.empty()) {
    ExecResult failed;
    failed.error = program.error;
    done(std::move(failed));
    return nullptr;
  }
  spec.program = program.path;
  spec.stderr_to_stdout = true;
  try {
    return common::runtime::collect(io, std::move(spec), {}, limit + 1,
                                    [done, limit](common::runtime::Collected collected) {
                                      ExecResult result;
                                      result.output = std::move(collected.out);
                                      if (result.output.size() > limit) {
                                        result.output.resize(limit);
                                        result.truncated = true;
                                      }
                                      if (collected.status.exit_code) result.exit_code = *collected.status.exit_code;
                                      else if (collected.status.signal) result.exit_code = 128 + *collected.status.signal;
                                      done(std::move(result));
                                    });
  } catch (const std::system_error& e) {
    ExecResult failed;
    failed.error = "cannot start " + argv[0] + (cwd.empty() ? "" : " in " + cwd) + ": " + e.code().message();
    done(std::move(failed));
    return nullptr;
  }
}

}  // namespace agentry::mock
