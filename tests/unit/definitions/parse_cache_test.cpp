// Single loads reuse an earlier parse of an unchanged file (loader.hpp): whatever changes
// what a load would return must still show.
#include "definitions/loader.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace agentry::definitions {
namespace {

using testing::fake_env;
using testing::TempDir;
namespace fs = std::filesystem;

/// Dates the file 10 s back, so it counts as settled and its parse is kept.
void settle(const fs::path& file) {
  fs::last_write_time(file, fs::file_time_type::clock::now() - std::chrono::seconds(10));
}

class ParseCache : public ::testing::Test {
 protected:
  Roots roots(std::map<std::string, std::string> env = {}) const {
    return Roots{dir.path() / "config", std::nullopt, fake_env(std::move(env))};
  }
  TempDir dir;
};

TEST_F(ParseCache, ARewriteOfTheSameSizeAndTimeIsSeen) {
  auto file = dir.write("config/agents/cached/agent.md", "---\nschemaVersion: 1\nbackend: codex\n---\nOne.\n");
  settle(file);
  const auto written = fs::last_write_time(file);
  for (int i = 0; i < 2; ++i) {
    auto agent = load_agent(roots(), "cached");
    ASSERT_TRUE(agent.ok()) << agent.error().message;
    EXPECT_EQ(agent->backend, "codex");
    EXPECT_EQ(agent->instructions, "One.");
  }
  // Same size, and the modification time put back: the change time still differs.
  dir.write("config/agents/cached/agent.md", "---\nschemaVersion: 1\nbackend: claud\n---\nTwo.\n");
  fs::last_write_time(file, written);
  auto agent = load_agent(roots(), "cached");
  ASSERT_TRUE(agent.ok()) << agent.error().message;
  EXPECT_EQ(agent->backend, "claud");
  EXPECT_EQ(agent->instructions, "Two.");
}

TEST_F(ParseCache, AnInterpolatedVariableThatChangedIsSeen) {
  settle(dir.write("config/agents/env/agent.md", "---\nschemaVersion: 1\nbackend: codex\nmodel: ${MODEL}\n---\n"));
  auto first = load_agent(roots({{"MODEL", "small"}}), "env");
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->model, "small");
  auto again = load_agent(roots({{"MODEL", "small"}}), "env");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->model, "small");
  auto changed = load_agent(roots({{"MODEL", "large"}}), "env");
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  EXPECT_EQ(changed->model, "large");
}

TEST_F(ParseCache, AnEditedTaskFileOfASettledAssignmentIsSeen) {
  settle(dir.write("config/assignments/review/assignment.md",
                   "---\nschemaVersion: 1\ntasks:\n  - check\n---\nReview.\n"));
  dir.write("config/tasks/check.md", "---\nschemaVersion: 1\ntitle: Check once\n---\n");
  auto first = load_assignment(roots(), "review");
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_EQ(first->tasks.size(), 1u);
  EXPECT_EQ(first->tasks[0].title, "Check once");
  dir.write("config/tasks/check.md", "---\nschemaVersion: 1\ntitle: Check twice\n---\n");
  auto edited = load_assignment(roots(), "review");
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  ASSERT_EQ(edited->tasks.size(), 1u);
  EXPECT_EQ(edited->tasks[0].title, "Check twice");
}

TEST_F(ParseCache, ADeletedFileIsNotFoundAndABrokenEditIsReported) {
  auto file = dir.write("config/agents/gone/agent.md", "---\nschemaVersion: 1\nbackend: codex\n---\n");
  settle(file);
  ASSERT_TRUE(load_agent(roots(), "gone").ok());
  dir.write("config/agents/gone/agent.md", "---\nschemaVersion: 2\nbackend: codex\n---\n");
  settle(file);
  EXPECT_FALSE(load_agent(roots(), "gone").ok());
  fs::remove(file);
  auto missing = load_agent(roots(), "gone");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, core::ErrorCode::not_found);
}

}  // namespace
}  // namespace agentry::definitions
