// Container execution environments through the real daemon and real Podman (runc, the
// cgroupfs manager, a local image made from the host's files: support/container_image):
// a managed container per run that the agent writes the workspace from and that is
// removed when the run ends; an abort that stops the process inside; a group's container
// reused by its runs and removed by `cleanup`; an existing container used and left
// alone; a missing image, an engine that cannot answer and a container killed under
// the agent, each a clear reason on the run with nothing left running.
#include "daemon_fixture.hpp"
#include "support/container_image.hpp"
#include "support/git_repo.hpp"

#include <dirent.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;

std::string yaml_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& i : items) out += (out.size() > 1 ? ", " : "") + json::serialize(json::value(i));
  return out + "]";
}

class ContainerEnvironmentsTest : public DaemonTest {
 protected:
  void SetUp() override {
    std::string why;
    image_ = test::container_test_image(test::DaemonProcess::binary_path(), why);
    // As bubblewrap's tests do: where the machine cannot run a container (podman missing,
    // or rootless without its user-namespace tools), say why and skip.
    if (image_.empty()) GTEST_SKIP() << why;
    DaemonTest::SetUp();
  }
  void TearDown() override {
    DaemonTest::TearDown();
    // Whatever a failed test left behind.
    for (const auto& name : containers()) test::podman({"rm", "-f", "-t", "0", name});
  }

  /// A managed container environment on the test image; `extra` adds fields.
  void write_environment(const std::string& name, const std::string& extra = "") {
    dir_.write_file("config/environments/" + name + ".yaml",
                    "schemaVersion: 1\nkind: container\nmode: managed\nengine: podman\nimage: " + image_ +
                        "\nengineArgs: " + yaml_list(test::podman_engine_args()) +
                        "\nextraRunArgs: " + yaml_list(test::podman_run_args()) + "\n" + extra);
  }
  /// A mock agent whose one step runs `script` with sh, in `environment`.
  void write_shell_agent(const std::string& name, const std::string& environment, const std::string& script) {
    write_agent(name, "mock", "{steps: [{exec: [sh, -c, " + json::serialize(json::value(script)) + "]}, {say: done}]}",
                "executionEnvironment: " + environment + "\n");
  }
  std::string read_file(const fs::path& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  /// A run of `agent` in run group `group`.
  std::string start_in_group(const std::string& agent, const std::string& group) {
    auto response = client().post_json(
        "/api/runs", json::object{{"agent", agent}, {"callerCwd", work_.string()}, {"runGroupId", group},
                                  {"overrides", {{"message", "go"}}}});
    EXPECT_EQ(response.status, 201) << response.body;
    return response.status == 201 ? std::string(response.json().at("run").at("runId").as_string()) : std::string();
  }
  /// The names of the containers this test's daemon made (running or not).
  std::vector<std::string> containers() {
    std::string out;
    test::podman({"ps", "-a", "--format", "{{.Names}}", "--filter", "label=agentry.owner=" + home_.string()}, &out);
    std::vector<std::string> names;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) names.push_back(line);
    return names;
  }
  std::vector<std::string> audit_types(const std::string& run) {
    std::vector<std::string> types;
    auto audit = client().get("/api/runs/" + run + "/audit").json();
    for (const auto& e : audit.at("events").as_array()) types.emplace_back(e.at("type").as_string());
    return types;
  }
  /// The container's removal is audited just after the engine removed it.
  bool wait_for_audit(const std::string& run, const std::string& type) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!has(audit_types(run), type) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return has(audit_types(run), type);
  }
  bool has(const std::vector<std::string>& items, const std::string& item) {
    return std::find(items.begin(), items.end(), item) != items.end();
  }
  /// Host processes whose environment says they belong to `run`.
  std::vector<int> processes_of(const std::string& run) {
    std::vector<int> pids;
    const std::string needle = "AGENTRY_RUN_ID=" + run;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::string env = read_file(entry.path() / "environ");
      for (std::size_t at = env.find(needle); at != std::string::npos; at = env.find(needle, at + 1))
        if ((at == 0 || env[at - 1] == '\0') && (at + needle.size() == env.size() || env[at + needle.size()] == '\0'))
          pids.push_back(std::stoi(name));
    }
    return pids;
  }
  /// What ran for `run` inside goes shortly after its container or its relay.
  bool wait_for_no_processes(const std::string& run) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!processes_of(run).empty() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return processes_of(run).empty();
  }
  /// The session's end releases the container on the blocking pool: wait for its removal.
  bool wait_for_no_containers(std::chrono::seconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (containers().empty()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }
  void wait_for_file(const fs::path& path, std::chrono::seconds timeout = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!fs::exists(path) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_TRUE(fs::exists(path)) << path;
  }

  std::string image_;
};

TEST_F(ContainerEnvironmentsTest, AManagedContainerRunWritesTheWorkspaceAndIsRemovedWhenTheRunEnds) {
  test::GitRepo repo(work_);
  repo.commit_files({{"README.md", "hello\n"}}, "initial");
  write_environment("box", "env: {FROM_ENVIRONMENT: \"yes\"}\n");
  write_shell_agent("boxed", "box",
                    "echo from-container > made.txt; cat /proc/1/cmdline > pid1.txt; "
                    "env > env.txt; pwd > pwd.txt");
  const std::string run = start_agent_run("boxed");
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(wait_until_settled(run, std::chrono::seconds(90)), "success") << json::serialize(get_run(run));

  EXPECT_EQ(read_file(work_ / "made.txt"), "from-container\n");  // the workspace, at the same path
  EXPECT_EQ(read_file(work_ / "pwd.txt"), work_.string() + "\n");
  EXPECT_EQ(read_file(work_ / "pid1.txt"), std::string("sleep\0infinity\0", 15));  // inside the container
  const std::string env = read_file(work_ / "env.txt");
  EXPECT_NE(env.find("AGENTRY_RUN_ID=" + run + "\n"), std::string::npos) << env;
  EXPECT_NE(env.find("FROM_ENVIRONMENT=yes\n"), std::string::npos) << env;
  EXPECT_EQ(env.find("AGENTRY_HOME="), std::string::npos) << env;  // the daemon's own stays out
  EXPECT_EQ(env.find("PATH=" + std::string(std::getenv("PATH")) + "\n"), std::string::npos) << env;

  auto diff = client().get("/api/runs/" + run + "/workspace/diff?mode=run");
  ASSERT_EQ(diff.status, 200) << diff.body;
  EXPECT_NE(diff.body.find("made.txt"), std::string::npos) << diff.body;

  const auto detail = get_run(run);
  EXPECT_EQ(json::serialize(detail.at("environment")),
            json::serialize(json::value{{"name", "box"}, {"kind", "container"}, {"network", "none"}}));
  EXPECT_TRUE(wait_for_no_containers());
  const auto types = audit_types(run);
  EXPECT_TRUE(has(types, "environment.container_created"));
  EXPECT_TRUE(has(types, "environment.exec"));
  EXPECT_TRUE(wait_for_audit(run, "environment.container_removed"));
  // A side question would start a process beside the run's, outside its container.
  auto asked = client().post_json("/api/runs/" + run + "/ask", json::object{{"question", "what did you do?"}});
  EXPECT_EQ(asked.status, 422) << asked.body;
  EXPECT_NE(asked.body.find("not supported for runs in a container environment"), std::string::npos) << asked.body;
}

TEST_F(ContainerEnvironmentsTest, TheAgentInsideMarksItsTasksThroughTheDaemonsSocketWithoutANetwork) {
  write_environment("box");  // network: none
  write_agent("reporter", "mock",
              "{steps: [{exec: [sh, -c, " +
                  json::serialize(json::value(
                      "agentry task set plan -s completed && agentry task set build -s completed && "
                      "agentry task set review/check -s completed --notes \"via $AGENTRY_CONNECT\"; "
                      "echo $? > task-set.txt")) +
                  "]}, {say: done}]}",
              "executionEnvironment: box\n");
  const std::string id = start_feature_run("reporter");
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(wait_until_settled(id, std::chrono::seconds(90)), "success") << json::serialize(get_run(id));
  EXPECT_EQ(read_file(work_ / "task-set.txt"), "0\n");
  const auto run = get_run(id);
  for (const auto& task : run.at("tasks").as_array()) EXPECT_EQ(task.at("status"), "completed") << task;
  EXPECT_EQ(run.at("tasks").at(2).at("notes"), json::value("via unix:///run/agentry/agentry.sock"));
}

TEST_F(ContainerEnvironmentsTest, AnAbortStopsTheProcessInsideAndRemovesTheContainer) {
  write_environment("box");
  write_shell_agent("sleeper", "box", "echo started > started.txt; sleep 300");
  const std::string run = start_agent_run("sleeper");
  ASSERT_FALSE(run.empty());
  wait_for_file(work_ / "started.txt");
  EXPECT_FALSE(processes_of(run).empty());  // the shell and its sleep, inside, seen from here
  ASSERT_EQ(client().post_json("/api/runs/" + run + "/abort", json::object{}).status, 200);
  EXPECT_EQ(wait_until_settled(run), "aborted");
  EXPECT_TRUE(wait_for_no_containers());
  EXPECT_TRUE(wait_for_no_processes(run));
}

TEST_F(ContainerEnvironmentsTest, ContainersAKilledDaemonLeftAreRemovedWhenItStartsAgain) {
  write_environment("box");
  write_shell_agent("sleeper", "box", "echo started > started.txt; sleep 300");
  const std::string run = start_agent_run("sleeper");
  ASSERT_FALSE(run.empty());
  wait_for_file(work_ / "started.txt");
  daemon_->kill9();
  EXPECT_EQ(containers(), std::vector<std::string>{"agentry-" + run});  // nobody removed it
  // The home says a container was made: only then does a start look for leftovers.
  EXPECT_TRUE(std::filesystem::exists(home_ / "containers-made"));
  start_daemon();
  EXPECT_TRUE(wait_for_no_containers());  // the restart's sweep
  EXPECT_TRUE(wait_for_no_processes(run));  // what ran inside went with it
  EXPECT_TRUE(wait_for_audit(run, "environment.container_removed"));
}

TEST_F(ContainerEnvironmentsTest, AGroupsRunsShareOneContainerUntilCleanupRemovesIt) {
  write_environment("shared",
                    "lifetime: group\ncleanup: {policy: manual}\nlifecycle:\n  afterStart:\n    - {kind: command, "
                    "target: container, command: sh, args: [-c, \"echo ready >> /tmp/ready\"]}\n");
  write_shell_agent("first", "shared", "hostname > first.txt; cat /tmp/ready > ready.txt");
  write_shell_agent("second", "shared", "hostname > second.txt");
  const std::string one = start_agent_run("first");
  ASSERT_FALSE(one.empty());
  EXPECT_EQ(wait_until_settled(one, std::chrono::seconds(90)), "success") << json::serialize(get_run(one));
  const std::string group(get_run(one).at("runGroupId").as_string());
  const std::string two = start_in_group("second", group);
  ASSERT_FALSE(two.empty());
  EXPECT_EQ(wait_until_settled(two, std::chrono::seconds(90)), "success") << json::serialize(get_run(two));

  EXPECT_EQ(read_file(work_ / "ready.txt"), "ready\n");  // afterStart ran in it (the second run's came later)
  EXPECT_FALSE(read_file(work_ / "first.txt").empty());
  EXPECT_EQ(read_file(work_ / "first.txt"), read_file(work_ / "second.txt"));  // one container
  EXPECT_TRUE(has(audit_types(two), "environment.container_reused"));
  EXPECT_FALSE(has(audit_types(two), "environment.container_created"));
  ASSERT_EQ(containers().size(), 1u);  // cleanup: manual keeps it

  auto status = client().get("/api/containers");
  ASSERT_EQ(status.status, 200) << status.body;
  ASSERT_EQ(status.json().at("containers").as_array().size(), 1u) << status.body;
  EXPECT_EQ(status.json().at("containers").at(0).at("groupId").as_string(), group);
  auto plain = client().post_json("/api/containers/cleanup", json::object{});
  ASSERT_EQ(plain.status, 200) << plain.body;
  EXPECT_TRUE(plain.json().at("removed").as_array().empty()) << plain.body;  // manual: kept
  auto all = client().post_json("/api/containers/cleanup", json::object{{"all", true}});
  ASSERT_EQ(all.status, 200) << all.body;
  EXPECT_EQ(all.json().at("removed").as_array().size(), 1u) << all.body;
  EXPECT_TRUE(containers().empty());
}

TEST_F(ContainerEnvironmentsTest, AGroupWorkspaceUnderHostRootIsCreatedOnceAndIsTheAgentsCwd) {
  // agent-runner's workspace block, tokens and lifecycle: the group's runs share
  // <state_dir>/workspaces/<group>, shown at /workspace; onWorkspaceCreate runs once
  // for it (a host step and a container step), afterStart for each run.
  write_environment("ws",
                    "lifetime: group\ncwd: \"{{workspace_host_path}}\"\n"
                    "workspace: {scope: group, hostRoot: \"{{state_dir}}/workspaces\", containerPath: /workspace, "
                    "mode: rw}\n"
                    "lifecycle:\n"
                    "  onWorkspaceCreate:\n"
                    "    - {kind: command, target: host, command: sh, args: [-c, \"echo host >> created.txt\"]}\n"
                    "    - {kind: command, target: container, command: sh, args: [-c, \"echo inside >> created.txt\"]}\n"
                    "  afterStart:\n"
                    "    - {kind: command, target: container, command: sh, args: [-c, \"echo {{run_id}} >> started.txt\"]}\n");
  write_shell_agent("worker-in", "ws", "pwd > where.txt");
  const std::string one = start_agent_run("worker-in");
  ASSERT_FALSE(one.empty());
  EXPECT_EQ(wait_until_settled(one, std::chrono::seconds(90)), "success") << json::serialize(get_run(one));
  const std::string group(get_run(one).at("runGroupId").as_string());
  const std::string two = start_in_group("worker-in", group);
  ASSERT_FALSE(two.empty());
  EXPECT_EQ(wait_until_settled(two, std::chrono::seconds(90)), "success") << json::serialize(get_run(two));
  const fs::path workspace = home_ / "workspaces" / group;
  EXPECT_EQ(read_file(workspace / "where.txt"), "/workspace\n");
  EXPECT_EQ(read_file(workspace / "created.txt"), "host\ninside\n");  // once, for both runs
  EXPECT_EQ(read_file(workspace / "started.txt"), one + "\n" + two + "\n");
  EXPECT_TRUE(wait_for_no_containers());  // terminal: gone with the group's last live run
}

TEST_F(ContainerEnvironmentsTest, AManualContainerOutlivesTheSessionAndGoesWithTheRun) {
  write_environment("kept", "cleanup: {policy: manual}\n");
  write_shell_agent("keeper", "kept", "echo kept > kept.txt");
  const std::string run = start_agent_run("keeper");
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(wait_until_settled(run, std::chrono::seconds(90)), "success") << json::serialize(get_run(run));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // a session-end removal would be done by now
  EXPECT_EQ(containers(), std::vector<std::string>{"agentry-" + run});
  ASSERT_EQ(client().post_json("/api/runs/" + run + "/archive", json::object{}).status, 200);
  EXPECT_EQ(containers().size(), 1u);  // archived is not deleted
  auto deleted = client().del("/api/runs/" + run);
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_TRUE(wait_for_no_containers());
}

TEST_F(ContainerEnvironmentsTest, AnExistingContainerIsUsedAndLeftRunning) {
  const std::string name = "agentry-test-existing-" + std::to_string(::getpid());
  std::vector<std::string> create{"run", "-d", "--name", name, "--network", "none", "-v",
                                  work_.string() + ":/src"};
  for (const auto& a : test::podman_run_args()) create.push_back(a);
  create.insert(create.end(), {image_, "sleep", "infinity"});
  std::string out;
  ASSERT_EQ(test::podman(create, &out), 0) << out;
  dir_.write_file("config/environments/theirs.yaml",
                  "schemaVersion: 1\nkind: container\nmode: existing\nengine: podman\ncontainer: " + name +
                      "\nengineArgs: " + yaml_list(test::podman_engine_args()) + "\nexpectedMounts:\n  - {hostPath: " +
                      work_.string() + ", containerPath: /src, mode: rw}\n");
  write_shell_agent("guest", "theirs", "pwd > where.txt");
  const std::string run = start_agent_run("guest");
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(wait_until_settled(run, std::chrono::seconds(60)), "success") << json::serialize(get_run(run));
  EXPECT_EQ(read_file(work_ / "where.txt"), "/src\n");  // found through the container's own mount
  EXPECT_TRUE(has(audit_types(run), "environment.container_used"));
  ASSERT_EQ(test::podman({"container", "inspect", "--format", "{{.State.Running}}", name}, &out), 0);
  EXPECT_NE(out.find("true"), std::string::npos) << out;  // never stopped or removed: not ours

  // Stopped, it is refused, not started: agentry does not manage it.
  test::podman({"stop", "-t", "0", name});
  const std::string refused = start_agent_run("guest");
  EXPECT_EQ(wait_until_settled(refused), "error");
  const std::string reason(get_run(refused).at("statusReason").as_string());
  EXPECT_NE(reason.find("is not running"), std::string::npos) << reason;
  test::podman({"rm", "-f", "-t", "0", name});
}

TEST_F(ContainerEnvironmentsTest, AMissingImageOrEngineIsAClearReasonAndLeavesNothingRunning) {
  dir_.write_file("config/environments/ghost.yaml",
                  "schemaVersion: 1\nkind: container\nmode: managed\nengine: podman\n"
                  "image: localhost/agentry-no-such-image:none\nengineArgs: " +
                      yaml_list(test::podman_engine_args()) + "\n");
  write_shell_agent("ghostly", "ghost", "echo ran > ran.txt");
  const std::string run = start_agent_run("ghostly");
  EXPECT_EQ(wait_until_settled(run, std::chrono::seconds(90)), "error");
  const std::string reason(get_run(run).at("statusReason").as_string());
  EXPECT_NE(reason.find("cannot start a container from image 'localhost/agentry-no-such-image:none'"),
            std::string::npos)
      << reason;
  EXPECT_TRUE(has(audit_types(run), "environment.failed"));
  EXPECT_FALSE(fs::exists(work_ / "ran.txt"));
  EXPECT_TRUE(containers().empty());

  // docker: not installed, or a client with no engine to answer; either way said so.
  dir_.write_file("config/environments/dock.yaml", "schemaVersion: 1\nkind: container\nmode: managed\nimage: x\n");
  write_shell_agent("docked", "dock", "echo ran > ran.txt");
  const std::string docked = start_agent_run("docked");
  EXPECT_EQ(wait_until_settled(docked, std::chrono::seconds(90)), "error");
  const std::string why(get_run(docked).at("statusReason").as_string());
  EXPECT_NE(why.find("docker"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(work_ / "ran.txt"));
}

TEST_F(ContainerEnvironmentsTest, AContainerKilledUnderTheAgentIsNamedInTheRunsError) {
  write_environment("box");
  write_agent("waiter", "subprocess", "{command: [sh, -c, 'echo started > started.txt; sleep 300']}",
              "executionEnvironment: box\n");
  const std::string run = start_agent_run("waiter");
  ASSERT_FALSE(run.empty());
  wait_for_file(work_ / "started.txt");
  ASSERT_EQ(test::podman({"kill", "agentry-" + run}), 0);
  EXPECT_EQ(wait_until_settled(run, std::chrono::seconds(60)), "error");
  // The engine is asked once the attempt has ended: the reason says it just after.
  std::string reason;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  do {
    reason = std::string(get_run(run).at("statusReason").as_string());
    if (reason.find("stopped while the agent ran") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  } while (std::chrono::steady_clock::now() < deadline);
  EXPECT_NE(reason.find("the container 'agentry-" + run + "' stopped while the agent ran"), std::string::npos)
      << reason;
  EXPECT_TRUE(has(audit_types(run), "environment.container_stopped"));
  EXPECT_TRUE(wait_for_no_containers());
  EXPECT_TRUE(wait_for_no_processes(run));
}

}  // namespace
}  // namespace agentry::integration
