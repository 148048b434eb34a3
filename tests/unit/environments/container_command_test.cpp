#include "environments/container_command.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace agentry::environments {
namespace {

core::FrozenEnvironment managed(core::ContainerSpec spec = {}) {
  core::FrozenEnvironment e;
  e.name = "box";
  e.kind = "container";
  e.network = "none";
  spec.image = "localhost/dev:1";
  e.container = std::move(spec);
  return e;
}

ContainerRunInputs inputs() {
  return {"agentry-r1", "/home/me/.agentry", "r1", "g1", "/src/app", "abc123", "/usr/bin/agentry",
          "/home/me/.agentry/socket/agentry.sock"};
}

/// The value after `flag` (every occurrence).
std::vector<std::string> values_of(const std::vector<std::string>& args, const std::string& flag) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == flag) out.push_back(args[i + 1]);
  return out;
}

TEST(ContainerRunArgs, AManagedContainerIsConfinedByDefaultAndLabelledAsOurs) {
  auto e = managed();
  e.env = {{"CI", "1"}};
  auto args = container_run_args(e, inputs());
  ASSERT_TRUE(args.ok()) << args.error().message;
  EXPECT_EQ((std::vector<std::string>(args->begin(), args->begin() + 4)),
            (std::vector<std::string>{"run", "-d", "--name", "agentry-r1"}));
  EXPECT_EQ(values_of(*args, "--network"), std::vector<std::string>{"none"});
  EXPECT_EQ(values_of(*args, "--cap-drop"), std::vector<std::string>{"ALL"});
  EXPECT_EQ(values_of(*args, "--security-opt"), std::vector<std::string>{"no-new-privileges"});
  const auto labels = values_of(*args, "--label");
  for (const char* l : {"agentry.owner=/home/me/.agentry", "agentry.run=r1", "agentry.spec=abc123",
                        "agentry.cleanup=session-end", "agentry.workspace=/src/app"})
    EXPECT_NE(std::find(labels.begin(), labels.end(), l), labels.end()) << l;
  EXPECT_EQ(values_of(*args, "--volume"),
            (std::vector<std::string>{"/src/app:/src/app", "/usr/bin/agentry:/usr/local/bin/agentry:ro",
                                      "/home/me/.agentry/socket:/run/agentry"}));
  EXPECT_EQ(values_of(*args, "-e"), std::vector<std::string>{"CI"});  // the value stays off the command line
  EXPECT_EQ(values_of(*args, "--entrypoint"), std::vector<std::string>{"sleep"});
  EXPECT_EQ((std::vector<std::string>(args->end() - 2, args->end())),
            (std::vector<std::string>{"localhost/dev:1", "infinity"}));
}

TEST(ContainerRunArgs, AGroupsContainerAndAMappedWorkspace) {
  core::ContainerSpec spec;
  spec.lifetime = "group";
  spec.workspace_container = "/workspace";
  spec.security.cap_drop = {};
  spec.security.user = "1000:1000";
  spec.extra_run_args = {"--ulimit", "nofile=1024:4096"};
  auto e = managed(spec);
  e.network = "host";
  auto args = container_run_args(e, inputs());
  ASSERT_TRUE(args.ok());
  const auto labels = values_of(*args, "--label");
  EXPECT_NE(std::find(labels.begin(), labels.end(), "agentry.group=g1"), labels.end());
  EXPECT_EQ(values_of(*args, "--network"), std::vector<std::string>{"host"});
  EXPECT_TRUE(values_of(*args, "--cap-drop").empty());
  EXPECT_EQ(values_of(*args, "--user"), std::vector<std::string>{"1000:1000"});
  EXPECT_EQ(values_of(*args, "--volume").front(), "/src/app:/workspace");
  EXPECT_EQ(values_of(*args, "--workdir"), std::vector<std::string>{"/workspace"});
  EXPECT_EQ(values_of(*args, "--ulimit"), std::vector<std::string>{"nofile=1024:4096"});
}

TEST(ContainerRunArgs, APathAVolumeCannotNameIsRefused) {
  auto e = managed();
  e.mounts = {{"/data:x", "/data", false}};
  auto args = container_run_args(e, inputs());
  ASSERT_FALSE(args.ok());
  EXPECT_EQ(args.error().details.at("reason").as_string(), "bad_path");
}

TEST(ContainerSteps, ACommandOrAClone) {
  core::ContainerStep clone;
  clone.clone_url = "https://example.com/r.git";
  clone.clone_ref = "main";
  EXPECT_EQ(step_command(clone, "/w"),
            (std::vector<std::string>{"git", "clone", "--branch", "main", "--", "https://example.com/r.git", "/w"}));
  core::ContainerStep command;
  command.command = {"make", "deps"};
  auto e = managed();
  e.env = {{"A", "b"}};
  EXPECT_EQ(container_step_args(e, "c1", "/w", command),
            (std::vector<std::string>{"exec", "--workdir", "/w", "-e", "A", "c1", "make", "deps"}));
}

TEST(InsidePath, TheCwdBelowTheWorkspaceMapsBelowItsInsidePath) {
  EXPECT_EQ(inside_path("/src", "/workspace", "/src"), "/workspace");
  EXPECT_EQ(inside_path("/src", "/workspace", "/src/app/lib"), "/workspace/app/lib");
  EXPECT_EQ(inside_path("/src", "/workspace", "/srcx"), std::nullopt);
  EXPECT_EQ(inside_path("/src", "/workspace", "/other"), std::nullopt);
}

}  // namespace
}  // namespace agentry::environments
