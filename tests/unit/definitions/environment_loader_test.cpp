#include "definitions/loader.hpp"

#include "test_support.hpp"

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

using testing::fake_env;
using testing::has_problem;
using testing::problems_of;
using testing::TempDir;

class EnvironmentLoader : public ::testing::Test {
 protected:
  Roots roots() const { return Roots{dir.path() / "config", std::nullopt, fake_env({{"HOME", "/home/me"}})}; }
  std::vector<Problem> problems(std::string_view name) const {
    auto result = load_environment(roots(), name);
    EXPECT_FALSE(result.ok());
    return result.ok() ? std::vector<Problem>{} : problems_of(result.error());
  }
  TempDir dir;
};

TEST_F(EnvironmentLoader, LoadsABubblewrapEnvironment) {
  dir.write("config/environments/sandbox.yaml", R"(schemaVersion: 1
description: The cwd and the agent's state only
kind: bubblewrap
network: host
mounts:
  - source: ${HOME}/.codex
  - {source: /srv/cache/, target: /cache, readOnly: true}
env:
  SANDBOXED: 1
extraArgs: [--unshare-pid]
bwrap: /usr/bin/bwrap
)");
  auto environment = load_environment(roots(), "sandbox");
  ASSERT_TRUE(environment.ok()) << environment.error().message;
  EXPECT_EQ(environment->name, "sandbox");
  EXPECT_EQ(environment->kind, "bubblewrap");
  EXPECT_EQ(environment->network, "host");
  ASSERT_EQ(environment->mounts.size(), 2u);
  EXPECT_EQ(environment->mounts[0].source, "/home/me/.codex");
  EXPECT_EQ(environment->mounts[0].target, "/home/me/.codex");
  EXPECT_FALSE(environment->mounts[0].read_only);
  EXPECT_EQ(environment->mounts[1].source, "/srv/cache");
  EXPECT_EQ(environment->mounts[1].target, "/cache");
  EXPECT_TRUE(environment->mounts[1].read_only);
  EXPECT_EQ(environment->env.at("SANDBOXED"), "1");
  EXPECT_EQ(environment->extra_args, std::vector<std::string>{"--unshare-pid"});
  EXPECT_EQ(environment->program, "/usr/bin/bwrap");

  const auto frozen = to_frozen_environment(*environment);
  EXPECT_EQ(frozen.name, "sandbox");
  EXPECT_EQ(frozen.kind, "bubblewrap");
  EXPECT_EQ(frozen.network, "host");
  EXPECT_EQ(frozen.program, "/usr/bin/bwrap");
  EXPECT_EQ(frozen.mounts.size(), 2u);
  EXPECT_EQ(frozen.env.at("SANDBOXED").as_string(), "1");
}

TEST_F(EnvironmentLoader, BubblewrapDefaultsToNoNetworkAndTheBwrapOnPath) {
  dir.write("config/environments/plain.yml", "schemaVersion: 1\nkind: bubblewrap\n");
  auto environment = load_environment(roots(), "plain");
  ASSERT_TRUE(environment.ok()) << environment.error().message;
  EXPECT_EQ(environment->network, "none");
  EXPECT_EQ(environment->program, "bwrap");
  EXPECT_TRUE(environment->mounts.empty());
}

TEST_F(EnvironmentLoader, UnknownKeysAreErrorsNamingTheField) {
  dir.write("config/environments/typo.yaml", "schemaVersion: 1\nkind: bubblewrap\nnetwrok: host\n");
  dir.write("config/environments/mount.yaml",
            "schemaVersion: 1\nkind: bubblewrap\nmounts: [{source: /a, writable: true}]\n");
  dir.write("config/environments/box.yaml", "schemaVersion: 1\nkind: container\nimage: x\nimgae: y\n");
  EXPECT_TRUE(has_problem(problems("typo"), "environments/typo.yaml", "netwrok", "unknown field"));
  EXPECT_TRUE(has_problem(problems("mount"), "environments/mount.yaml", "mounts[0].writable", "unknown field"));
  EXPECT_TRUE(has_problem(problems("box"), "environments/box.yaml", "imgae", "unknown field"));
}

TEST_F(EnvironmentLoader, KindAndNetworkAndMountsAreChecked) {
  dir.write("config/environments/nokind.yaml", "schemaVersion: 1\n");
  dir.write("config/environments/vm.yaml", "schemaVersion: 1\nkind: vm\n");
  dir.write("config/environments/net.yaml", "schemaVersion: 1\nkind: bubblewrap\nnetwork: bridge\n");
  dir.write("config/environments/rel.yaml", "schemaVersion: 1\nkind: bubblewrap\nmounts: [{source: state}]\n");
  dir.write("config/environments/dots.yaml", "schemaVersion: 1\nkind: bubblewrap\nmounts: [{source: /a/../b}]\n");
  dir.write("config/environments/root.yaml", "schemaVersion: 1\nkind: bubblewrap\nmounts: [{source: /}]\n");
  dir.write("config/environments/nosource.yaml", "schemaVersion: 1\nkind: bubblewrap\nmounts: [{target: /x}]\n");
  dir.write("config/environments/list.yaml", "schemaVersion: 1\nkind: bubblewrap\nmounts: [/a]\n");
  EXPECT_TRUE(has_problem(problems("nokind"), "nokind.yaml", "kind", "is required"));
  EXPECT_TRUE(has_problem(problems("vm"), "vm.yaml", "kind", "bubblewrap or container"));
  EXPECT_TRUE(has_problem(problems("net"), "net.yaml", "network", "none (the default) or host"));
  EXPECT_TRUE(has_problem(problems("rel"), "rel.yaml", "mounts[0].source", "absolute path"));
  EXPECT_TRUE(has_problem(problems("dots"), "dots.yaml", "mounts[0].source", "'..'"));
  EXPECT_TRUE(has_problem(problems("root"), "root.yaml", "mounts[0].source", "must not be '/'"));
  EXPECT_TRUE(has_problem(problems("nosource"), "nosource.yaml", "mounts[0].source", "is required"));
  EXPECT_TRUE(has_problem(problems("list"), "list.yaml", "mounts[0]", "must be a map"));
}

TEST_F(EnvironmentLoader, AManagedContainerInAgentRunnersFormatReadsEveryField) {
  dir.write("config/environments/box.yaml", R"(schemaVersion: 1
name: box
kind: container
mode: managed
engine: podman
engineArgs: [--runtime, runc]
image: node:22
lifetime: group
cwd: "{{workspace_host_path}}"
workspace:
  scope: group
  hostRoot: "{{state_dir}}/workspaces"
  containerPath: /workspace
  mode: rw
  create: true
lifecycle:
  afterStart:
    - kind: command
      target: container
      command: npm
      args: [install]
      user: node
  onWorkspaceCreate:
    - kind: git-clone
      target: container
      source: /host/repos/project.git
      baseRef: origin/main
      branch: "agent-runner/{{run_id}}"
sessionMounts: backend
mounts:
  - {hostPath: /srv/data, containerPath: /data, mode: ro}
network: host
security: {userns: keep-id, selinuxLabel: disable, readOnlyRootFilesystem: true, capDrop: [NET_RAW], capAdd: [CHOWN], noNewPrivileges: false}
env: {A: b}
extraRunArgs: [--ulimit, nofile=1024:4096]
extraExecArgs: [--tty=false]
cleanup: {policy: manual}
keepAlive: [tail, -f, /dev/null]
)");
  auto environment = load_environment(roots(), "box");
  ASSERT_TRUE(environment.ok()) << environment.error().message;
  EXPECT_EQ(environment->kind, "container");
  ASSERT_TRUE(environment->container);
  const auto& c = *environment->container;
  EXPECT_EQ(c.image, "node:22");
  EXPECT_EQ(c.engine, "podman");
  EXPECT_EQ(c.engine_args, (std::vector<std::string>{"--runtime", "runc"}));
  EXPECT_EQ(c.lifetime, "group");
  EXPECT_EQ(c.cwd, "{{workspace_host_path}}");
  EXPECT_TRUE(c.workspace);
  EXPECT_EQ(c.workspace_scope, "group");
  EXPECT_EQ(c.workspace_host_root, "{{state_dir}}/workspaces");
  EXPECT_EQ(c.workspace_container, "/workspace");
  ASSERT_EQ(c.after_start.size(), 1u);
  EXPECT_EQ(c.after_start[0].command, (std::vector<std::string>{"npm", "install"}));
  EXPECT_EQ(c.after_start[0].user, "node");
  ASSERT_EQ(c.on_workspace_create.size(), 1u);
  EXPECT_EQ(c.on_workspace_create[0].kind, "git-clone");
  EXPECT_EQ(c.on_workspace_create[0].base_ref, "origin/main");
  EXPECT_EQ(c.session_mounts, std::vector<std::string>{"backend"});
  EXPECT_EQ(c.security.userns, "keep-id");
  EXPECT_TRUE(c.security.read_only_root);
  EXPECT_FALSE(c.security.no_new_privileges);
  EXPECT_EQ(c.security.cap_drop, (std::vector<std::string>{"NET_RAW"}));
  EXPECT_EQ(c.cleanup, "manual");
  EXPECT_EQ(c.keep_alive, (std::vector<std::string>{"tail", "-f", "/dev/null"}));
  const auto frozen = to_frozen_environment(*environment);
  EXPECT_EQ(frozen.network, "host");
  ASSERT_EQ(frozen.mounts.size(), 1u);
  EXPECT_TRUE(frozen.mounts[0].read_only);
  // The frozen form round-trips through JSON with every field.
  ASSERT_TRUE(frozen.container);
  EXPECT_EQ(boost::json::serialize(core::to_json(core::container_spec_from_json(core::to_json(*frozen.container)))),
            boost::json::serialize(core::to_json(*frozen.container)));
}

TEST_F(EnvironmentLoader, AnExistingContainerNamesItAndTheMountsItMustHave) {
  dir.write("config/environments/theirs.yaml", R"(schemaVersion: 1
kind: container
mode: existing
engine: docker
container: devbox
cwd: "{{cwd}}"
expectedMounts:
  - {hostPath: "{{cwd}}", containerPath: "{{cwd}}", mode: rw}
)");
  auto environment = load_environment(roots(), "theirs");
  ASSERT_TRUE(environment.ok()) << environment.error().message;
  const auto& c = *environment->container;
  EXPECT_EQ(c.mode, "existing");
  EXPECT_EQ(c.container, "devbox");
  ASSERT_EQ(c.expected_mounts.size(), 1u);
  EXPECT_EQ(c.expected_mounts[0].target, "{{cwd}}");
}

TEST_F(EnvironmentLoader, AManagedContainerDefaultsToNoNetworkAndRemovalWhenTheRunEnds) {
  dir.write("config/environments/box.yaml", "schemaVersion: 1\nkind: container\nmode: managed\nimage: debian\n");
  auto environment = load_environment(roots(), "box");
  ASSERT_TRUE(environment.ok()) << environment.error().message;
  const auto& c = *environment->container;
  EXPECT_EQ(c.engine, "docker");
  EXPECT_EQ(c.lifetime, "run");
  EXPECT_EQ(c.cleanup, "terminal");
  EXPECT_EQ(c.cwd, "{{cwd}}");
  EXPECT_TRUE(c.security.cap_drop.empty());
  EXPECT_TRUE(c.security.no_new_privileges);
  EXPECT_EQ(to_frozen_environment(*environment).network, "none");  // agent-runner's would be the engine's
}

TEST_F(EnvironmentLoader, ContainerMistakesAreErrorsNamingTheField) {
  dir.write("config/environments/nomode.yaml", "schemaVersion: 1\nkind: container\nimage: x\n");
  dir.write("config/environments/noimage.yaml", "schemaVersion: 1\nkind: container\nmode: managed\n");
  dir.write("config/environments/engine.yaml",
            "schemaVersion: 1\nkind: container\nmode: managed\nimage: x\nengine: lxc\n");
  dir.write("config/environments/existing.yaml",
            "schemaVersion: 1\nkind: container\nmode: existing\ncontainer: dev\nimage: x\nnetwork: host\n"
            "cleanup: {policy: manual}\n");
  dir.write("config/environments/step.yaml",
            "schemaVersion: 1\nkind: container\nmode: managed\nimage: x\nlifecycle:\n  afterStart:\n"
            "    - {kind: command, command: a}\n    - {kind: command, target: host, command: a, user: root}\n"
            "  onWorkspaceCreate:\n    - {kind: git-clone, target: container, source: s, baseRef: main, branch: b}\n");
  dir.write("config/environments/option.yaml",
            "schemaVersion: 1\nkind: container\nmode: managed\nimage: --privileged\n");
  dir.write("config/environments/secure.yaml",
            "schemaVersion: 1\nkind: container\nmode: managed\nimage: x\nsecurity: {priviledged: true}\n");
  dir.write("config/environments/mounts.yaml",
            "schemaVersion: 1\nkind: container\nmode: managed\nimage: x\nmounts:\n  - {hostPath: /a, containerPath: /a}\n"
            "workspace: {hostRoot: /r, hostPath: /p, containerPath: /w}\n");
  EXPECT_TRUE(has_problem(problems("nomode"), "nomode.yaml", "mode", "is required"));
  EXPECT_TRUE(has_problem(problems("noimage"), "noimage.yaml", "image", "is required"));
  EXPECT_TRUE(has_problem(problems("engine"), "engine.yaml", "engine", "not one of: docker, podman"));
  const auto existing = problems("existing");
  EXPECT_TRUE(has_problem(existing, "existing.yaml", "image", "does not apply to mode existing"));
  EXPECT_TRUE(has_problem(existing, "existing.yaml", "network", "does not apply to mode existing"));
  EXPECT_TRUE(has_problem(existing, "existing.yaml", "cleanup", "does not apply to mode existing"));
  const auto step = problems("step");
  EXPECT_TRUE(has_problem(step, "step.yaml", "lifecycle.afterStart[0].target", "is required"));
  EXPECT_TRUE(has_problem(step, "step.yaml", "lifecycle.afterStart[1].user", "only for target: container"));
  EXPECT_TRUE(has_problem(step, "step.yaml", "lifecycle.onWorkspaceCreate", "requires a workspace block"));
  EXPECT_TRUE(has_problem(problems("option"), "option.yaml", "image", "not an image reference"));
  EXPECT_TRUE(has_problem(problems("secure"), "secure.yaml", "security.priviledged", "unknown field"));
  const auto mounts = problems("mounts");
  EXPECT_TRUE(has_problem(mounts, "mounts.yaml", "mounts[0].mode", "is required"));
  EXPECT_TRUE(has_problem(mounts, "mounts.yaml", "workspace.hostPath", "not both"));
}

TEST_F(EnvironmentLoader, AgentsNameTheirEnvironment) {
  dir.write("config/agents/boxed/agent.md",
            "---\nschemaVersion: 1\nbackend: subprocess\nexecutionEnvironment: sandbox\n---\nHi.\n");
  dir.write("config/agents/bad/agent.md",
            "---\nschemaVersion: 1\nbackend: subprocess\nexecutionEnvironment: ../x\n---\nHi.\n");
  dir.write("config/agents/open/agent.md",
            "---\nschemaVersion: 1\nbackend: subprocess\nunlockedFields: [environment]\n---\nHi.\n");
  auto agent = load_agent(roots(), "boxed");
  ASSERT_TRUE(agent.ok()) << agent.error().message;
  EXPECT_EQ(agent->execution_environment, "sandbox");
  auto bad = load_agent(roots(), "bad");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(has_problem(problems_of(bad.error()), "bad/agent.md", "executionEnvironment", "not an environment name"));
  EXPECT_TRUE(load_agent(roots(), "open").ok());
}

}  // namespace
}  // namespace agentry::definitions
