// `agentry service install | uninstall | status` (docs/operations.md) over the real
// binary, with XDG_CONFIG_HOME in a scratch directory and PATH chosen by each test:
// without systemctl (the unit is written and printed with the commands to enable it),
// with a fake systemctl that records its calls (exactly daemon-reload, enable --now;
// disable --now, daemon-reload), with one whose user manager cannot be reached, and the
// written unit judged by systemd-analyze where it is installed.

#include "cli_fixture.hpp"

#include "support/subprocess.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>
#include <sstream>

namespace agentry::integration {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

class ServiceCommandTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    xdg_ = dir_.make_dir("xdg");
    bin_ = dir_.make_dir("bin");
    calls_log_ = dir_.path() / "systemctl-calls.log";
    unit_ = xdg_ / "systemd" / "user" / "agentry.service";
    env_file_ = xdg_ / "agentry" / "service.env";
  }

  /// `agentry <args>` with only bin_ on PATH (plus `extra`).
  CliResult service(const std::vector<std::string>& args, test::EnvOverrides extra = {}) {
    extra.emplace_back("XDG_CONFIG_HOME", xdg_.string());
    extra.emplace_back("PATH", bin_.string());
    extra.emplace_back("SYSTEMCTL_CALLS", calls_log_.string());
    return cli(args, extra);
  }

  /// A systemctl that appends its arguments to $SYSTEMCTL_CALLS and answers like a user
  /// manager with the service enabled and active; `reload_fails`: like one that cannot be
  /// reached.
  void fake_systemctl(bool reload_fails = false) {
    std::string script = "#!/bin/sh\necho \"$*\" >> \"$SYSTEMCTL_CALLS\"\n";
    if (reload_fails)
      script +=
          "if [ \"$2\" = daemon-reload ]; then echo 'Failed to connect to bus: No medium found' >&2; exit 1; fi\n";
    script += "case \"$2\" in is-enabled) echo enabled ;; is-active) echo active ;; esac\nexit 0\n";
    dir_.write_file("bin/systemctl", script);
    fs::permissions(bin_ / "systemctl", fs::perms::owner_all);
  }

  std::vector<std::string> systemctl_calls() const {
    std::vector<std::string> calls;
    if (!fs::exists(calls_log_)) return calls;
    std::istringstream in(test::read_file(calls_log_));
    for (std::string line; std::getline(in, line);) calls.push_back(line);
    return calls;
  }

  static std::string binary() { return fs::canonical(test::DaemonProcess::binary_path()).string(); }

  fs::path xdg_, bin_, calls_log_, unit_, env_file_;
};

TEST_P(ServiceCommandTest, WithoutSystemctlWritesTheUnitAndSaysHowToEnableIt) {
  auto r = service({"service", "install"}, {{"AGENTRY_LOG_LEVEL", "debug"}});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("systemctl is not on PATH"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("systemctl --user enable --now agentry.service"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("loginctl enable-linger"), std::string::npos) << r.out;
  ASSERT_TRUE(fs::exists(unit_)) << r.out;
  const std::string unit = test::read_file(unit_);
  EXPECT_NE(unit.find("ExecStart=" + binary() + " serve --listen ws://127.0.0.1:4773/\n"), std::string::npos) << unit;
  // The settings of this shell: the directories as resolved, what the environment sets, PATH.
  EXPECT_NE(unit.find("Environment=\"AGENTRY_HOME=" + home_.string() + "\""), std::string::npos) << unit;
  EXPECT_NE(unit.find("Environment=\"AGENTRY_CONFIG_DIR=" + config_.string() + "\""), std::string::npos) << unit;
  EXPECT_NE(unit.find("Environment=\"AGENTRY_LOG_LEVEL=debug\""), std::string::npos) << unit;
  EXPECT_NE(unit.find("Environment=\"AGENTRY_INTERRUPT_GRACE_MS=2000\""), std::string::npos) << unit;
  EXPECT_NE(unit.find("Environment=\"PATH=" + bin_.string() + "\""), std::string::npos) << unit;
  EXPECT_NE(unit.find("Restart=on-failure\n"), std::string::npos) << unit;
  EXPECT_NE(unit.find("WantedBy=default.target\n"), std::string::npos) << unit;
  EXPECT_NE(unit.find("EnvironmentFile=-" + env_file_.string() + "\n"), std::string::npos) << unit;
  EXPECT_EQ(unit.find("AGENTRY_CONNECT"), std::string::npos) << "a client's setting is not the daemon's: " << unit;
  EXPECT_TRUE(systemctl_calls().empty());
}

TEST_P(ServiceCommandTest, TheTokenGoesToAnEnvironmentFileOfMode0600NeverIntoTheUnit) {
  const std::string token = "tok-3f9a1c-never-in-the-unit";
  dir_.write_file("xdg/agentry/service.env", "OPENAI_API_KEY=\"mine\"\nAGENTRY_DAEMON_TOKEN=\"old\"\n");
  auto r = service({"service", "install", "--json"},
                   {{"AGENTRY_DAEMON_TOKEN", token}, {"AGENTRY_DAEMON_AUTH_ENABLED", "true"}});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto result = json::parse(r.out).as_object();
  EXPECT_EQ(result.at("written"), true);
  EXPECT_EQ(result.at("systemd"), false);
  EXPECT_EQ(result.at("secrets"), (json::array{"AGENTRY_DAEMON_TOKEN"}));
  EXPECT_EQ(r.out.find(token), std::string::npos) << "the token is printed: " << r.out;
  const std::string unit = test::read_file(unit_);
  EXPECT_EQ(unit.find(token), std::string::npos) << unit;
  EXPECT_NE(unit.find("Environment=\"AGENTRY_DAEMON_AUTH_ENABLED=true\""), std::string::npos) << unit;
  struct stat st {};
  ASSERT_EQ(::stat(env_file_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const std::string env = test::read_file(env_file_);
  EXPECT_NE(env.find("AGENTRY_DAEMON_TOKEN=\"" + token + "\"\n"), std::string::npos) << env;
  EXPECT_EQ(env.find("\"old\""), std::string::npos) << "the old token is replaced: " << env;
  EXPECT_NE(env.find("OPENAI_API_KEY=\"mine\"\n"), std::string::npos) << "what the user added stays: " << env;
}

TEST_P(ServiceCommandTest, AStoreUriWithAPasswordIsASecretToo) {
  auto r = service({"service", "install"}, {{"AGENTRY_STORE", "postgresql://agentry:pw-7c1e@127.0.0.1:1/agentry"}});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string unit = test::read_file(unit_);
  EXPECT_EQ(unit.find("pw-7c1e"), std::string::npos) << unit;
  EXPECT_EQ(unit.find("AGENTRY_STORE"), std::string::npos) << unit;
  EXPECT_NE(test::read_file(env_file_).find("AGENTRY_STORE=\"postgresql://agentry:pw-7c1e@127.0.0.1:1/agentry\"\n"),
            std::string::npos);
}

TEST_P(ServiceCommandTest, WithSystemctlInstallEnablesAndUninstallDisablesAndRemoves) {
  fake_systemctl();
  auto installed = service({"service", "install", "--listen", "ws://127.0.0.1:4999/"});
  ASSERT_EQ(installed.code, 0) << installed.err;
  EXPECT_NE(installed.out.find("enabled and started agentry.service"), std::string::npos) << installed.out;
  EXPECT_EQ(systemctl_calls(),
            (std::vector<std::string>{"--user daemon-reload", "--user enable --now agentry.service"}));
  EXPECT_NE(test::read_file(unit_).find(" serve --listen ws://127.0.0.1:4999/\n"), std::string::npos);

  auto status = service({"service", "status", "--json"});
  ASSERT_EQ(status.code, 0) << status.err;
  const auto s = json::parse(status.out).as_object();
  EXPECT_EQ(s.at("installed"), true);
  EXPECT_EQ(s.at("enabled"), "enabled");
  EXPECT_EQ(s.at("active"), "active");
  EXPECT_EQ(s.at("unit").as_string(), unit_.string());

  auto removed = service({"service", "uninstall"});
  ASSERT_EQ(removed.code, 0) << removed.err;
  EXPECT_FALSE(fs::exists(unit_));
  EXPECT_FALSE(fs::exists(env_file_));
  EXPECT_EQ(systemctl_calls(),
            (std::vector<std::string>{"--user daemon-reload", "--user enable --now agentry.service",
                                      "--user is-enabled agentry.service", "--user is-active agentry.service",
                                      "--user disable --now agentry.service", "--user daemon-reload"}));
  auto after = service({"service", "status", "--json"});
  EXPECT_EQ(json::parse(after.out).at("installed"), false) << after.out;
}

TEST_P(ServiceCommandTest, AnUnreachableUserManagerLeavesTheUnitWrittenAndSaysWhatToRun) {
  fake_systemctl(/*reload_fails=*/true);
  auto r = service({"service", "install"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("user manager cannot be reached (Failed to connect to bus: No medium found)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("systemctl --user enable --now agentry.service"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(unit_));
  EXPECT_EQ(systemctl_calls(), (std::vector<std::string>{"--user daemon-reload"})) << "no enable after a failed reload";
}

TEST_P(ServiceCommandTest, PrintOnlyPrintsAndABadListenIsRefused) {
  fake_systemctl();
  auto printed = service({"service", "install", "--print", "--listen", "ws://127.0.0.1:4888/"});
  ASSERT_EQ(printed.code, 0) << printed.err;
  EXPECT_NE(printed.out.find("# " + unit_.string() + "\n"), std::string::npos) << printed.out;
  EXPECT_NE(printed.out.find("ExecStart=" + binary() + " serve --listen ws://127.0.0.1:4888/\n"), std::string::npos)
      << printed.out;
  EXPECT_FALSE(fs::exists(unit_));
  EXPECT_FALSE(fs::exists(env_file_));
  EXPECT_TRUE(systemctl_calls().empty());

  auto bad = service({"service", "install", "--listen", "http://[oops"});
  EXPECT_EQ(bad.code, 3) << bad.out;
  EXPECT_NE(bad.err.find("--listen"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(unit_));
}

TEST_P(ServiceCommandTest, SystemdAnalyzeVerifiesTheWrittenUnit) {
  std::optional<fs::path> analyze;
  try {
    analyze = test::find_program("systemd-analyze");
  } catch (const std::exception&) {
    GTEST_SKIP() << "systemd-analyze is not installed (apt-get install systemd): the unit is not verified";
  }
  // A value systemd would expand (%) or that needs quoting, written so it reads it back as is.
  auto r = service({"service", "install"}, {{"AGENTRY_DAEMON_NAME", "lab 50% \"east\" \\ $HOME"}});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(test::read_file(unit_).find("Environment=\"AGENTRY_DAEMON_NAME=lab 50%% \\\"east\\\" \\\\ $HOME\"\n"),
            std::string::npos)
      << test::read_file(unit_);
  const auto out = dir_.path() / "verify.out";
  test::SpawnOptions options;
  options.argv = {analyze->string(), "verify", unit_.string()};
  options.env = test::environment_with({{"SYSTEMD_LOG_LEVEL", "notice"}});
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  options.stdout_fd = fd;
  options.stderr_fd = fd;
  const pid_t pid = test::spawn_process(options);
  ::close(fd);
  const auto code = test::wait_for_exit(pid, std::chrono::seconds(60));
  ASSERT_TRUE(code.has_value());
  const std::string said = test::read_file(out);
  EXPECT_EQ(*code, 0) << said << "\n" << test::read_file(unit_);
  // A key systemd cannot parse is only logged ("Unknown key", "Failed to parse"): none may be.
  EXPECT_EQ(said.find("Unknown"), std::string::npos) << said;
  EXPECT_EQ(said.find("Failed"), std::string::npos) << said;
}

INSTANTIATE_TEST_SUITE_P(Local, ServiceCommandTest, ::testing::Values(CliMode::embedded), mode_name);

}  // namespace
}  // namespace agentry::integration
