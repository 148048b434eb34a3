// A real Claude Code in a bubblewrap environment (docs/environments.md), through the
// daemon, against the loopback mock model: its shell writes inside the run's cwd, and a
// command writing anywhere else on the host fails. `network: host`, since the agent must
// reach the model; its HOME is a writable mount. Skipped loudly when Claude Code or a
// working bwrap is missing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "agent_run_test.hpp"
#include "support/agent_binaries.hpp"
#include "support/sandbox_probe.hpp"

namespace agentry::integration {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

class ClaudeInBubblewrap : public AgentRunTest {
 protected:
  void SetUp() override {
    binary_ = test::claude_binary();
    if (!binary_) {
      std::cerr << test::not_installed_banner("claude");
      GTEST_SKIP() << test::not_installed_banner("claude");
    }
    if (!test::bubblewrap_works()) GTEST_SKIP() << "bubblewrap (bwrap) is missing or cannot create namespaces here";
    AgentRunTest::SetUp();
  }

  std::optional<fs::path> binary_;
};

TEST_F(ClaudeInBubblewrap, ItsShellWritesInTheCwdAndNowhereElse) {
  test::OutsideDir outside;
  ASSERT_FALSE(outside.path().empty());
  dir_.write_file("config/environments/confined.yaml",
                  "schemaVersion: 1\nkind: bubblewrap\nnetwork: host\nmounts:\n  - source: " + home_.string() + "\n");
  const json::object config{{"binary", binary_->string()},
                            {"env",
                             {{"HOME", home_.string()},
                              {"ANTHROPIC_BASE_URL", mock_->anthropic_base_url()},
                              {"ANTHROPIC_API_KEY", "dummy"},
                              {"CLAUDE_CODE_MAX_RETRIES", "0"}}}};
  write_agent("confined-claude", "claude", json::serialize(config),
              "unrestricted: true\nexecutionEnvironment: confined\n");
  const fs::path escape = outside.path() / "escape.txt";
  const std::string run = start_agent_run("confined-claude", "SHELL: echo inside > inside.txt\nSHELL: echo escaped > " +
                                                                 escape.string() + "\nSAY: tried both");
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  EXPECT_EQ(get_run(run).at("environment").at("kind"), "bubblewrap");
  EXPECT_TRUE(fs::exists(work_ / "inside.txt")) << describe(run);
  EXPECT_FALSE(fs::exists(escape)) << describe(run);
  const auto completed = events_of(run, "tool.completed");
  ASSERT_EQ(completed.size(), 2u) << describe(run);
  EXPECT_NE(json::serialize(completed[1]).find("Read-only file system"), std::string::npos)
      << "the write outside the cwd should fail on the read-only host: " << json::serialize(completed[1]);
}

}  // namespace
}  // namespace agentry::integration
