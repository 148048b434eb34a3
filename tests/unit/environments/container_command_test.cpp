#include "environments/container_command.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include <stdlib.h>

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
  return {"agentry-r1", "/home/me/.agentry", "r1", "g1", "/src/app", "/src/app", "abc123", "/usr/bin/agentry",
          "/home/me/.agentry/socket/agentry.sock", {}};
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
  EXPECT_TRUE(values_of(*args, "--cap-drop").empty());  // the engine's capabilities, as agent-runner
  EXPECT_EQ(values_of(*args, "--security-opt"), std::vector<std::string>{"no-new-privileges"});
  const auto labels = values_of(*args, "--label");
  for (const char* l : {"agentry.owner=/home/me/.agentry", "agentry.run=r1", "agentry.spec=abc123",
                        "agentry.cleanup=terminal", "agentry.workspace=/src/app"})
    EXPECT_NE(std::find(labels.begin(), labels.end(), l), labels.end()) << l;
  EXPECT_EQ(values_of(*args, "--volume"),
            (std::vector<std::string>{"/src/app:/src/app", "/usr/bin/agentry:/usr/local/bin/agentry:ro",
                                      "/home/me/.agentry/socket:/run/agentry"}));
  EXPECT_EQ(values_of(*args, "-e"), std::vector<std::string>{"CI"});  // the value stays off the command line
  EXPECT_EQ(values_of(*args, "--entrypoint"), std::vector<std::string>{"sleep"});
  EXPECT_EQ((std::vector<std::string>(args->end() - 2, args->end())),
            (std::vector<std::string>{"localhost/dev:1", "infinity"}));
}

TEST(ContainerRunArgs, AGroupsContainerAMappedWorkspaceAndTheSecurityFields) {
  core::ContainerSpec spec;
  spec.lifetime = "group";
  spec.workspace = true;
  spec.workspace_read_only = true;
  spec.security.cap_drop = {"NET_RAW"};
  spec.security.user = "1000:1000";
  spec.security.userns = "keep-id";
  spec.security.selinux_label = "private";
  spec.extra_run_args = {"--ulimit", "nofile=1024:4096"};
  auto e = managed(spec);
  e.network = "host";
  auto in = inputs();
  in.inside_root = "/workspace";
  in.mounts = {{"/srv/data", "/data", true}};
  auto args = container_run_args(e, in);
  ASSERT_TRUE(args.ok());
  const auto labels = values_of(*args, "--label");
  EXPECT_NE(std::find(labels.begin(), labels.end(), "agentry.group=g1"), labels.end());
  EXPECT_EQ(values_of(*args, "--network"), std::vector<std::string>{"host"});
  EXPECT_EQ(values_of(*args, "--cap-drop"), std::vector<std::string>{"NET_RAW"});
  EXPECT_EQ(values_of(*args, "--user"), std::vector<std::string>{"1000:1000"});
  EXPECT_EQ(values_of(*args, "--userns"), std::vector<std::string>{"keep-id"});
  const auto volumes = values_of(*args, "--volume");
  EXPECT_EQ(volumes.at(0), "/src/app:/workspace:ro,Z");
  EXPECT_EQ(volumes.at(1), "/srv/data:/data:ro,Z");
  EXPECT_EQ(values_of(*args, "--workdir"), std::vector<std::string>{"/workspace"});
  EXPECT_EQ(values_of(*args, "--ulimit"), std::vector<std::string>{"nofile=1024:4096"});
}

TEST(ContainerRunArgs, APathAVolumeCannotNameIsRefused) {
  auto in = inputs();
  in.mounts = {{"/data:x", "/data", false}};
  auto args = container_run_args(managed(), in);
  ASSERT_FALSE(args.ok());
  EXPECT_EQ(args.error().details.at("reason").as_string(), "bad_path");
}

TEST(ContainerSteps, ACommandOrAClone) {
  core::ContainerStep clone;
  clone.kind = "git-clone";
  clone.source = "/host/repos/project.git";
  clone.base_ref = "origin/main";
  clone.branch = "work";
  EXPECT_EQ(step_commands(clone, "/w"),
            (std::vector<std::vector<std::string>>{{"git", "clone", "--", "/host/repos/project.git", "/w"},
                                                   {"git", "-C", "/w", "checkout", "-b", "work", "origin/main"}}));
  core::ContainerStep command;
  command.command = {"npm", "install"};
  command.user = "node";
  command.env = {{"CI", "1"}};
  auto e = managed();
  e.env = {{"A", "b"}};
  EXPECT_EQ(container_exec_args(e, "c1", "/w", command, command.command),
            (std::vector<std::string>{"exec", "--user", "node", "--workdir", "/w", "-e", "A", "-e", "CI", "c1", "npm",
                                      "install"}));
}

TEST(RenderTokens, KnownTokensAreReplacedAndAnUnknownOneIsNamed) {
  const std::map<std::string, std::string> tokens{{"run_id", "r1"}, {"state_dir", "/s"}};
  EXPECT_EQ(render_tokens("{{state_dir}}/workspaces/{{ run_id }}", tokens), "/s/workspaces/r1");
  std::string unknown;
  EXPECT_EQ(render_tokens("/x/{{nope}}", tokens, &unknown), std::nullopt);
  EXPECT_EQ(unknown, "nope");
  EXPECT_EQ(render_tokens("plain", tokens), "plain");
}

TEST(SessionMountPaths, PresetsAreTheBackendsStoresAtTheSamePath) {
  char pattern[] = "/tmp/agentry-home-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string home = pattern;
  const auto mounts = session_mount_paths({"backend", "pi"}, "claude", home, "");
  ASSERT_EQ(mounts.size(), 2u);  // ~/.claude (made), no ~/.claude.json (absent), ~/.pi (made)
  EXPECT_EQ(mounts[0].source, home + "/.claude");
  EXPECT_EQ(mounts[0].target, home + "/.claude");
  EXPECT_FALSE(mounts[0].read_only);
  EXPECT_EQ(mounts[1].source, home + "/.pi");
  EXPECT_EQ(session_mount_paths({"codex"}, "claude", home, home + "/codex-home").at(0).source, home + "/codex-home");
  std::filesystem::remove_all(home);
}

TEST(InsidePath, TheCwdBelowTheWorkspaceMapsBelowItsInsidePath) {
  EXPECT_EQ(inside_path("/src", "/workspace", "/src"), "/workspace");
  EXPECT_EQ(inside_path("/src", "/workspace", "/src/app/lib"), "/workspace/app/lib");
  EXPECT_EQ(inside_path("/src", "/workspace", "/srcx"), std::nullopt);
  EXPECT_EQ(inside_path("/src", "/workspace", "/other"), std::nullopt);
}

}  // namespace
}  // namespace agentry::environments
