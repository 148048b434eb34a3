// Execution environments through the real daemon: a subprocess agent in a bubblewrap
// environment writes in its cwd and in the mounts it was given, and nowhere else; with
// `network: none` it cannot reach a loopback listener of the host, with `network: host` it
// can. An environment agentry cannot apply (a backend that ignores the launcher prefix)
// refuses the run instead of running the agent unconfined. Containers:
// container_environments_test.cpp.
#include "daemon_fixture.hpp"
#include "support/sandbox_probe.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

namespace agentry::integration {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;

/// A TCP listener on 127.0.0.1 (ephemeral port), closed with the object.
class LoopbackListener {
 public:
  LoopbackListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 8) != 0) return;
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~LoopbackListener() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

using test::bubblewrap_works;
using test::OutsideDir;

class EnvironmentsTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    if (!bubblewrap_works()) GTEST_SKIP() << "bubblewrap (bwrap) is missing or cannot create namespaces here";
  }
  void write_environment(const std::string& name, const std::string& body) {
    dir_.write_file("config/environments/" + name + ".yaml", "schemaVersion: 1\n" + body);
  }
  /// A subprocess agent that runs `script` with sh.
  void write_shell_agent(const std::string& name, const std::string& script, const std::string& extra = "") {
    dir_.write_file("config/agents/" + name + "/agent.md",
                    "---\nschemaVersion: 1\nbackend: subprocess\nbackendConfig:\n  subprocess:\n    command: [sh, -c, " +
                        json::serialize(json::value(script)) + "]\n" + extra + "---\nA shell agent.\n");
  }
  std::string read_file(const fs::path& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  test::HttpResponse start(const std::string& agent, json::object overrides = {}) {
    overrides["message"] = "go";
    return client().post_json("/api/runs",
                              json::object{{"agent", agent}, {"callerCwd", work_.string()}, {"overrides", overrides}});
  }
  std::string started_run(const test::HttpResponse& response) {
    EXPECT_EQ(response.status, 201) << response.body;
    if (response.status != 201) return {};
    return std::string(response.json().at("run").at("runId").as_string());
  }
  /// What the agent saw connecting to a loopback listener of the host: "open" or "refused".
  std::string connect_from(const std::string& environment) {
    LoopbackListener listener;
    EXPECT_NE(listener.port(), 0);
    write_shell_agent("dialer",
                      "if bash -c 'exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(listener.port()) +
                          "' 2>/dev/null; then echo open > net.txt; else echo refused > net.txt; fi",
                      "executionEnvironment: " + environment + "\n");
    const std::string run = started_run(start("dialer"));
    EXPECT_EQ(wait_until_settled(run), "success") << json::serialize(get_run(run));
    std::string seen = read_file(work_ / "net.txt");
    fs::remove(work_ / "net.txt");
    while (!seen.empty() && seen.back() == '\n') seen.pop_back();
    return seen;
  }
};

TEST_F(EnvironmentsTest, ABubblewrapAgentWritesInItsCwdAndMountsButNowhereElse) {
  OutsideDir outside;
  ASSERT_FALSE(outside.path().empty());
  const fs::path state = dir_.make_dir("agent-state");
  write_environment("confined", "kind: bubblewrap\ndescription: the cwd only\nmounts:\n  - source: " +
                                    state.string() + "\nenv: {SANDBOXED: \"yes\"}\n");
  const std::string marker = "/tmp/agentry-environments-" + std::to_string(::getpid());
  write_shell_agent("writer",
                    "echo \"$SANDBOXED\" > inside.txt\n"
                    "echo state > '" + state.string() + "/state.txt'\n"
                    "if echo escaped > '" + outside.path().string() + "/escape.txt' 2>/dev/null; then echo wrote;"
                    " else echo refused; fi > outside.txt\n"
                    "echo private > '" + marker + "'\n"
                    "test -f '" + marker + "'\n",
                    "executionEnvironment: confined\n");
  const std::string run = started_run(start("writer"));
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(wait_until_settled(run), "success") << json::serialize(get_run(run));
  EXPECT_EQ(read_file(work_ / "inside.txt"), "yes\n");      // the cwd is writable; env applied
  EXPECT_EQ(read_file(state / "state.txt"), "state\n");     // a mount is writable
  EXPECT_EQ(read_file(work_ / "outside.txt"), "refused\n");  // the rest of the host is not
  EXPECT_FALSE(fs::exists(outside.path() / "escape.txt"));
  EXPECT_FALSE(fs::exists(marker));  // its /tmp was its own
  const auto detail = get_run(run);
  EXPECT_EQ(json::serialize(detail.at("environment")),
            json::serialize(json::value{{"name", "confined"}, {"kind", "bubblewrap"}, {"network", "none"}}));
}

TEST_F(EnvironmentsTest, NetworkNoneCannotReachALoopbackListenerAndNetworkHostCan) {
  write_environment("offline", "kind: bubblewrap\n");  // network: none is the default
  write_environment("online", "kind: bubblewrap\nnetwork: host\n");
  EXPECT_EQ(connect_from("online"), "open");
  EXPECT_EQ(connect_from("offline"), "refused");
}

TEST_F(EnvironmentsTest, TheRequestOverridesTheAgentsEnvironmentOnceTheAgentUnlocksIt) {
  OutsideDir outside;
  ASSERT_FALSE(outside.path().empty());
  write_environment("confined", "kind: bubblewrap\n");
  const std::string script = "if echo x > '" + outside.path().string() +
                             "/escape.txt' 2>/dev/null; then echo wrote; else echo refused; fi > outside.txt";
  write_shell_agent("locked", script);
  auto refused = start("locked", {{"environment", "confined"}});
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_NE(refused.body.find("unlockedFields: [environment]"), std::string::npos) << refused.body;

  write_shell_agent("open", script, "unlockedFields: [environment]\n");
  const std::string run = started_run(start("open", {{"environment", "confined"}}));
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(wait_until_settled(run), "success") << json::serialize(get_run(run));
  EXPECT_EQ(read_file(work_ / "outside.txt"), "refused\n");
  EXPECT_FALSE(fs::exists(outside.path() / "escape.txt"));
  EXPECT_EQ(get_run(run).at("environment").at("name").as_string(), "confined");

  // Without an environment the same agent writes there: the sandbox made the difference.
  const std::string host_run = started_run(start("open"));
  EXPECT_EQ(wait_until_settled(host_run), "success");
  EXPECT_TRUE(get_run(host_run).at("environment").is_null());
  EXPECT_EQ(read_file(work_ / "outside.txt"), "wrote\n");
}

TEST_F(EnvironmentsTest, ABackendThatIgnoresTheLauncherPrefixIsRefused) {
  write_environment("confined", "kind: bubblewrap\n");
  write_agent("viewer", "browser", "{}", "executionEnvironment: confined\n");
  auto response = start("viewer");
  EXPECT_EQ(response.status, 422) << response.body;
  EXPECT_NE(response.body.find("backend 'browser'"), std::string::npos) << response.body;
}

TEST_F(EnvironmentsTest, AnUnknownKeyIsAnErrorNamingTheField) {
  write_environment("typo", "kind: bubblewrap\nnetwrok: host\n");
  auto shown = client().get("/api/environments/typo");
  EXPECT_EQ(shown.status, 422) << shown.body;
  EXPECT_NE(shown.body.find("netwrok"), std::string::npos) << shown.body;
  write_shell_agent("typed", "echo ran > ran.txt", "executionEnvironment: typo\n");
  auto response = start("typed");
  EXPECT_EQ(response.status, 422) << response.body;
  EXPECT_NE(response.body.find("netwrok"), std::string::npos) << response.body;
  EXPECT_FALSE(fs::exists(work_ / "ran.txt"));
}

TEST_F(EnvironmentsTest, EnvironmentsAreListed) {
  write_environment("confined", "kind: bubblewrap\ndescription: cwd only\n");
  write_environment("box", "kind: container\nmode: managed\nimage: debian\n");
  auto listed = client().get("/api/environments");
  ASSERT_EQ(listed.status, 200) << listed.body;
  const auto body = listed.json();
  const auto& entries = body.at("environments").at("entries").as_array();
  ASSERT_EQ(entries.size(), 2u) << listed.body;
  EXPECT_EQ(entries.at(0).at("name").as_string(), "box");
  EXPECT_EQ(entries.at(1).at("kind").as_string(), "bubblewrap");
  EXPECT_EQ(entries.at(1).at("network").as_string(), "none");
}

}  // namespace
}  // namespace agentry::integration
