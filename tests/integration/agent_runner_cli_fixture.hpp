#pragma once
// The fixture of the agent-runner command's tests (agent_runner_cli_test.cpp,
// agent_runner_verbs_test.cpp): agentry called through its `agent-runner` link, in both
// CLI modes, and what those tests check its answers with.
#include "cli_fixture.hpp"

#include "unit/api/compat/ref_schema_checks.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace agentry::integration::agent_runner_cli {
namespace fs = std::filesystem;
using api::compat::testing::Problems;

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// A checker's problems, one per line ("" when there are none).
inline std::string joined(const Problems& problems) {
  std::string out;
  for (const auto& p : problems) out += p + "\n";
  return out;
}

/// The link the build makes: `agent-runner` beside the agentry binary.
inline fs::path agent_runner_link() { return test::DaemonProcess::binary_path().parent_path() / "agent-runner"; }

class AgentRunnerCliTest : public CliTest {
 protected:
  /// `agent-runner <args>`, called by that name through the link.
  CliResult ar(const std::vector<std::string>& args, const test::EnvOverrides& extra = {}) {
    program_ = agent_runner_link();
    auto r = cli(args, extra);
    program_.clear();
    return r;
  }
  /// A run of `worker` (passive) on the `feature` assignment (tasks plan and build).
  std::string init_feature_run() {
    auto r = ar({"init", "--agent", "worker", "--assignment", "feature", "--var", "feature=login"});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
};

}  // namespace agentry::integration::agent_runner_cli
