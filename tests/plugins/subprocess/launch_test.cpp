// Launching: environment, working directory, stdin, launcher prefix, extra arguments,
// and what happens when the command cannot run or the config is wrong.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "plugin_instance.hpp"

namespace agentry::test {
namespace {

namespace json = boost::json;

std::string completed_text(SubprocessInstance& instance) {
  const auto completed = instance.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED);
  return completed.empty() ? std::string("(no message)") : std::string(completed.back().payload.at("text").as_string());
}

TEST(SubprocessLaunch, EnvironmentAndWorkingDirectoryReachTheChild) {
  SubprocessInstance instance;
  const std::string script = R"sh(printf '%s|%s|%s|%s|%s\n' "$AGENTRY_RUN_ID" "$MY_VAR" "$(pwd -P)" "$AGENTRY_PROMPT" "$HOME")sh";
  ASSERT_EQ(instance.start(config_json(shell(script, {{"env", {{"MY_VAR", "x y"}}}}))), AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("outcome"), "success");
  const std::string workspace = std::filesystem::canonical(instance.workspace().path()).string();
  const char* home = std::getenv("HOME");
  EXPECT_EQ(completed_text(instance), "run-1|x y|" + workspace + "|hello|" + (home ? home : "") + "\n");
}

TEST(SubprocessLaunch, PromptArrivesOnStdin) {
  SubprocessInstance instance;
  ASSERT_EQ(instance.start(config_json(json::object{{"command", strings({"cat"})}}),
                           with_prompt("line one\nline two")),
            AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("outcome"), "success");
  EXPECT_EQ(completed_text(instance), "line one\nline two");
}

TEST(SubprocessLaunch, StdinNoneReadsNothing) {
  SubprocessInstance instance;
  ASSERT_EQ(instance.start(config_json(shell("cat; echo end", {{"stdin", "none"}}))), AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("outcome"), "success");
  EXPECT_EQ(completed_text(instance), "end\n");
}

TEST(SubprocessLaunch, LauncherPrefixesTheCommandAndExtraArgsFollowIt) {
  SubprocessInstance instance;
  json::object launcher{{"name", "wrap"}, {"command", strings({"env", "FOO=1"})}, {"env", {{"BAR", "2"}}}};
  const std::string config = config_json(shell(R"(echo "$FOO$BAR:$0:$1")"),
                                         {{"launcher", std::move(launcher)}, {"extraArgs", strings({"a", "b"})}});
  ASSERT_EQ(instance.start(config), AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("outcome"), "success");
  EXPECT_EQ(completed_text(instance), "12:a:b\n");
}

TEST(SubprocessLaunch, ResumeTokenIsPassedInTheEnvironment) {
  SubprocessInstance instance;
  ASSERT_EQ(instance.start(config_json(shell("echo \"$AGENTRY_RESUME_TOKEN\"")), with_resume_token("tok-7")),
            AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("outcome"), "success");
  EXPECT_EQ(completed_text(instance), "tok-7\n");
}

TEST(SubprocessLaunch, MissingCommandFinishesWithAClearError) {
  SubprocessInstance instance;
  ASSERT_EQ(instance.start(config_json(json::object{{"command", strings({"agentry-no-such-program", "x"})}})),
            AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished(),
            (json::object{{"outcome", "error"}, {"message", "command 'agentry-no-such-program' not found in PATH"}}));
  EXPECT_EQ(instance.host().events().size(), 1u);
}

TEST(SubprocessLaunch, NonExecutableCommandFinishesWithAClearError) {
  SubprocessInstance instance;
  const auto script = instance.workspace().write_file("script.sh", "#!/bin/sh\necho hi\n");
  ::chmod(script.c_str(), 0644);
  ASSERT_EQ(instance.start(config_json(json::object{{"command", strings({"./script.sh"})}})), AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("message"), "command './script.sh' is not executable");
}

TEST(SubprocessLaunch, MissingWorkspaceFinishesWithAClearError) {
  SubprocessInstance instance;
  ASSERT_EQ(instance.start(config_json(shell("true")), with_workspace("/nonexistent/agentry-ws")),
            AGENTRY_OK);
  EXPECT_THAT(std::string(instance.wait_finished().at("message").as_string()),
              ::testing::StartsWith("workspace directory '/nonexistent/agentry-ws' is not accessible"));
}

TEST(SubprocessLaunch, BadConfigIsRejectedAtStart) {
  struct Case {
    std::string config;
    std::string log_fragment;
  };
  const std::vector<Case> cases{
      {R"({"backendConfig":{}})", "backendConfig.subprocess.command must name the program to run"},
      {R"({"backendConfig":{"command":[]}})", "backendConfig.subprocess.command must name the program to run"},
      {R"({"backendConfig":{"command":["sh",1]}})", "backendConfig.subprocess.command[1] must be a string"},
      {R"({"backendConfig":{"command":["sh"],"mode":"xml"}})",
       "backendConfig.subprocess.mode must be \"text\" or \"jsonl\""},
      {R"({"backendConfig":{"command":["sh"],"stdln":"none"}})", "unknown key 'stdln' in backendConfig.subprocess"},
      {R"({"backendConfig":{"command":["sh"],"env":{"A":1}}})", "backendConfig.subprocess.env.A must be a string"},
      {R"({"backendConfig":{"command":["sh"]},"timeoutSec":-1})", "timeoutSec must be between"},
      {R"({"backendConfig":{"command":["sh"]},"launcher":{"command":"x"}})", "launcher.command must be an array"},
      {R"(not json)", "config_json is not valid JSON"},
  };
  for (const Case& c : cases) {
    SubprocessInstance instance;
    EXPECT_EQ(instance.start(c.config), AGENTRY_ERR_INVALID_ARGUMENT) << c.config;
    EXPECT_TRUE(instance.host().events().empty());
    const auto logs = instance.host().logs();
    ASSERT_EQ(logs.size(), 1u) << c.config;
    EXPECT_THAT(logs[0], ::testing::HasSubstr(c.log_fragment));
  }
}

}  // namespace
}  // namespace agentry::test
