#include "notify/command.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace agentry::notify {
namespace {
using std::chrono::milliseconds;

TEST(Command, TheProgramGetsTheEventOnStdinAndItsVariables) {
  auto out = std::filesystem::temp_directory_path() / ("agentry-notify-" + std::to_string(::getpid()) + ".json");
  CommandRequest rq;
  rq.argv = {"tee", out.string()};
  rq.stdin_data = R"({"event":"run.finished"})";
  auto result = run_command(rq, CommandLimits{});
  EXPECT_TRUE(result.delivered) << result.error;
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), rq.stdin_data);
  std::filesystem::remove(out);

  CommandRequest env;
  env.argv = {"sh", "-c", "test \"$AGENTRY_NOTIFY_EVENT\" = run.needs_user"};
  env.env = {{"AGENTRY_NOTIFY_EVENT", "run.needs_user"}};
  EXPECT_TRUE(run_command(env, CommandLimits{}).delivered);
}

TEST(Command, AFailingProgramReportsItsStatusAndStderr) {
  CommandRequest rq;
  rq.argv = {"sh", "-c", "echo 'no route to pager' >&2; exit 3"};
  auto result = run_command(rq, CommandLimits{});
  EXPECT_FALSE(result.delivered);
  EXPECT_FALSE(result.permanent);
  EXPECT_NE(result.error.find("exited with status 3"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("no route to pager"), std::string::npos) << result.error;
}

TEST(Command, AMissingProgramIsPermanent) {
  CommandRequest rq;
  rq.argv = {"agentry-no-such-program-here"};
  auto result = run_command(rq, CommandLimits{});
  EXPECT_FALSE(result.delivered);
  EXPECT_TRUE(result.permanent);
}

TEST(Command, ASlowProgramIsKilledAtTheTimeout) {
  CommandRequest rq;
  rq.argv = {"sleep", "30"};
  CommandLimits limits;
  limits.timeout = milliseconds(200);
  auto started = std::chrono::steady_clock::now();
  auto result = run_command(rq, limits);
  EXPECT_FALSE(result.delivered);
  EXPECT_NE(result.error.find("did not finish"), std::string::npos) << result.error;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST(Command, AProgramThatIgnoresStdinAndFloodsStdoutStillFinishes) {
  CommandRequest rq;
  rq.argv = {"sh", "-c", "head -c 1000000 /dev/zero"};
  rq.stdin_data = std::string(1 << 20, 'x');
  auto result = run_command(rq, CommandLimits{});
  EXPECT_TRUE(result.delivered) << result.error;
}

}  // namespace
}  // namespace agentry::notify
