// Who is a run's controller, and is it still there: pid, zombie, start time, and what a
// daemon holding the home's lock knows.
#include "engine/controllers.hpp"

#include "core/process_identity.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace agentry::engine {
namespace {

std::string id_of(const std::string& kind, long pid, std::optional<std::uint64_t> start) {
  std::string id = kind + "-" + std::to_string(pid) + "-abc123";
  if (start) id += "-" + std::to_string(*start);
  return id;
}

// Holding the daemon lock for one test; the flag is process-wide.
struct AsTheDaemon {
  AsTheDaemon() { set_holds_daemon_lock(true); }
  ~AsTheDaemon() { set_holds_daemon_lock(false); }
};

TEST(ControllerId, ReadsPidAndStartTimeFromOldAndNewIds) {
  EXPECT_EQ(controller_pid("daemon-1234-abc123"), 1234);
  EXPECT_EQ(controller_pid("cli-1234-abc123-99887766"), 1234);
  EXPECT_EQ(controller_pid(""), 0);
  EXPECT_EQ(controller_start_time("daemon-1234-abc123"), std::nullopt);
  EXPECT_EQ(controller_start_time("cli-1234-abc123-99887766"), 99887766u);
  EXPECT_EQ(controller_start_time("cli-1234-abc123-"), std::nullopt);
  EXPECT_EQ(controller_start_time("cli-1234-abc123-12x"), std::nullopt);
  EXPECT_EQ(controller_start_time("cli-1234-abc123-12-3"), std::nullopt);
  EXPECT_EQ(controller_start_time(""), std::nullopt);
}

TEST(ControllerAlive, ALiveProcessIsAliveWithItsStartTimeOrWithoutOne) {
  const long parent = static_cast<long>(::getppid());
  auto start = core::process_start_time(parent);
  if (!start) GTEST_SKIP() << "no /proc here";
  EXPECT_TRUE(controller_alive_elsewhere(id_of("cli", parent, start)));
  EXPECT_TRUE(controller_alive_elsewhere(id_of("cli", parent, std::nullopt)));  // an id from before start times
  EXPECT_TRUE(controller_alive_elsewhere(id_of("daemon", parent, start)));
  EXPECT_FALSE(controller_alive_elsewhere(id_of("cli", parent, *start + 1))) << "the pid was reused";
  EXPECT_FALSE(controller_alive_elsewhere(id_of("cli", ::getpid(), core::process_start_time(::getpid()))))
      << "this process is not elsewhere";
  EXPECT_FALSE(controller_alive_elsewhere(id_of("cli", 0x3fffffff, std::nullopt)));
  EXPECT_FALSE(controller_alive_elsewhere(""));
}

TEST(ControllerAlive, AZombieIsGoneWhateverTheIdSays) {
  if (!core::process_start_time(::getpid())) GTEST_SKIP() << "no /proc here";
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  auto start = core::process_start_time(child);  // may already be a zombie: it still has one
  for (int i = 0; i < 500; ++i) {
    auto stat = core::read_proc_stat(child);
    if (stat && stat->state == 'Z') break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(core::read_proc_stat(child)->state, 'Z');
  EXPECT_FALSE(controller_alive_elsewhere(id_of("cli", child, std::nullopt)));
  if (start) {
    EXPECT_FALSE(controller_alive_elsewhere(id_of("cli", child, start)));
  }
  ::waitpid(child, nullptr, 0);
}

TEST(ControllerAlive, TheDaemonHoldingTheLockKnowsOtherDaemonsAreGone) {
  const long parent = static_cast<long>(::getppid());
  auto start = core::process_start_time(parent);
  ASSERT_TRUE(controller_alive_elsewhere(id_of("daemon", parent, start)));
  {
    AsTheDaemon daemon;
    EXPECT_TRUE(holds_daemon_lock());
    EXPECT_FALSE(controller_alive_elsewhere(id_of("daemon", parent, start)));
    EXPECT_FALSE(controller_alive_elsewhere(id_of("daemon", parent, std::nullopt)));
    EXPECT_TRUE(controller_alive_elsewhere(id_of("cli", parent, start))) << "embedded CLIs take no lock";
  }
  EXPECT_FALSE(holds_daemon_lock());
  EXPECT_TRUE(controller_alive_elsewhere(id_of("daemon", parent, start)));
}

}  // namespace
}  // namespace agentry::engine
