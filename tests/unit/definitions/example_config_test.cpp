// The example config directory shipped in the repository must load cleanly: it is what
// the daemon uses when a user has none, and what the docs point people at.

#include "definitions/loader.hpp"

#include "definitions/template.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace agentry::definitions {
namespace {

std::optional<std::filesystem::path> example_config_dir() {
  if (const char* source = std::getenv("AGENTRY_SOURCE_DIR"); source != nullptr && *source != '\0') {
    return std::filesystem::path(source) / "config";
  }
  return std::nullopt;  // ctest sets it; keep absolute paths out of compile flags (ccache)
}

class ExampleConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto dir = example_config_dir();
    if (!dir) GTEST_SKIP() << "AGENTRY_SOURCE_DIR is not set";
    if (!std::filesystem::is_directory(*dir)) GTEST_SKIP() << dir->string() << " does not exist";
    roots_ = Roots{*dir, std::nullopt, testing::fake_env()};
  }
  Roots roots_;
};

TEST_F(ExampleConfig, EverythingLoadsWithoutWarnings) {
  const auto counts = testing::expect_every_kind_without_warnings(roots_);
  EXPECT_GE(counts.agents, 2u);
  EXPECT_GE(counts.assignments, 1u);
  EXPECT_GE(counts.launchers, 1u);
  EXPECT_GE(counts.tasks, 1u);
}

TEST_F(ExampleConfig, AgentsReferToExistingLaunchers) {
  for (const auto& agent : list_agents(roots_).entries) {
    if (!agent.launcher) continue;
    EXPECT_TRUE(load_launcher(roots_, *agent.launcher).ok()) << agent.name << " -> " << *agent.launcher;
  }
}

TEST_F(ExampleConfig, AssignmentsRenderWithTheirDefaults) {
  for (const auto& assignment : list_assignments(roots_).entries) {
    // Give every required var a value of its type, as a caller would.
    boost::json::object given;
    for (const auto& spec : assignment.vars) {
      if (!spec.required || spec.default_value) continue;
      if (spec.type == VarType::enumeration) given[spec.name] = spec.values.front();
      else if (spec.type == VarType::number) given[spec.name] = 1;
      else if (spec.type == VarType::boolean) given[spec.name] = true;
      else given[spec.name] = "example";
    }
    auto vars = resolve_vars(assignment.vars, given, VarSource::web, testing::fake_env());
    ASSERT_TRUE(vars.ok()) << assignment.name << ": " << vars.error().message;
    boost::json::object context = *vars;
    for (const auto& key : builtin_template_keys()) context[key] = "x";
    EXPECT_TRUE(render_template(assignment.instructions, context).unknown_keys.empty()) << assignment.name;
    if (assignment.message) {
      EXPECT_TRUE(render_template(*assignment.message, context).unknown_keys.empty()) << assignment.name;
    }
    for (const auto& task : assignment.tasks) {
      EXPECT_TRUE(render_template(task.title, context).unknown_keys.empty()) << assignment.name << "/" << task.id;
      EXPECT_TRUE(render_template(task.body, context).unknown_keys.empty()) << assignment.name << "/" << task.id;
    }
  }
}

}  // namespace
}  // namespace agentry::definitions
