// Stopping: interrupt(), SIGKILL after the grace period, timeoutSec, and no process
// left behind. Time limits here are generous upper bounds that only catch hangs.
#include <chrono>
#include <csignal>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "plugin_instance.hpp"

namespace agentry::test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

TEST(SubprocessStop, InterruptEndsACommandAsInterrupted) {
  SubprocessInstance instance;
  ASSERT_EQ(instance.start(config_json(json::object{{"command", strings({"sleep", "100"})}})), AGENTRY_OK);
  const auto begun = std::chrono::steady_clock::now();
  EXPECT_EQ(instance.interrupt("user asked"), AGENTRY_OK);
  EXPECT_EQ(instance.interrupt("again"), AGENTRY_OK);  // idempotent
  const json::object finished = instance.wait_finished(20s);
  EXPECT_EQ(finished.at("outcome"), "interrupted");
  EXPECT_EQ(finished.at("message"), "interrupted: user asked");
  EXPECT_EQ(finished.at("signal"), SIGINT);
  EXPECT_LT(std::chrono::steady_clock::now() - begun, 20s);
  EXPECT_EQ(instance.host().finished_count(), 1);
}

TEST(SubprocessStop, ChildIgnoringSigintIsKilledAfterTheGrace) {
  SubprocessInstance instance;
  ASSERT_EQ(instance.start(config_json(shell("trap '' INT; echo ready; sleep 100; echo survived",
                                             {{"interruptGraceMs", 300}}))),
            AGENTRY_OK);
  ASSERT_TRUE(instance.wait_for_text(AGENTRY_EVENT_MESSAGE_DELTA, "ready", 20s));
  EXPECT_EQ(instance.interrupt(), AGENTRY_OK);
  const json::object finished = instance.wait_finished(20s);
  EXPECT_EQ(finished.at("outcome"), "interrupted");
  EXPECT_EQ(finished.at("signal"), SIGKILL);
  EXPECT_FALSE(instance.wait_for_text(AGENTRY_EVENT_MESSAGE_DELTA, "survived", 0s));
}

TEST(SubprocessStop, TimeoutEndsWithAnError) {
  SubprocessInstance instance;
  ASSERT_EQ(instance.start(config_json(json::object{{"command", strings({"sleep", "100"})}}, {{"timeoutSec", 1}})),
            AGENTRY_OK);
  const json::object finished = instance.wait_finished(30s);
  EXPECT_EQ(finished.at("outcome"), "error");
  EXPECT_EQ(finished.at("message"), "timed out after 1 s");
}

TEST(SubprocessStop, InterruptAfterTheEndChangesNothing) {
  SubprocessInstance instance;
  ASSERT_EQ(instance.start(config_json(shell("exit 0"))), AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("outcome"), "success");
  EXPECT_EQ(instance.interrupt(), AGENTRY_OK);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(instance.host().finished_count(), 1);
}

TEST(SubprocessStop, NoProcessIsLeftBehind) {
  long shell_pid = 0, background_pid = 0;
  {
    SubprocessInstance instance;
    // The shell leaves a background sleep behind (holding stdout) and exits.
    ASSERT_EQ(instance.start(config_json(shell("sleep 100 & echo $$ $!"))), AGENTRY_OK);
    EXPECT_EQ(instance.wait_finished(20s).at("outcome"), "success");
    const auto completed = instance.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED);
    ASSERT_EQ(completed.size(), 1u);
    std::istringstream pids(std::string(completed[0].payload.at("text").as_string()));
    pids >> shell_pid >> background_pid;
    ASSERT_GT(background_pid, 0);
    instance.destroy();
  }
  EXPECT_FALSE(process_alive(shell_pid));
  // SIGKILL to the group is asynchronous: allow the kernel a moment.
  for (int i = 0; i < 200 && process_alive(background_pid); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(process_alive(background_pid));
}

TEST(SubprocessStop, DestroyWithoutStartIsFine) {
  SubprocessInstance instance;
  instance.destroy();
  EXPECT_TRUE(instance.host().events().empty());
}

}  // namespace
}  // namespace agentry::test
