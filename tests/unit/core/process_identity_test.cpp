#include "core/process_identity.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace agentry::core {
namespace {

// A child that waits on a pipe and exits when the pipe is closed; not reaped until asked,
// so it can be seen as a zombie in between.
class Child {
 public:
  Child() {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork");
    if (pid_ == 0) {
      ::close(fds[1]);
      char c;
      while (::read(fds[0], &c, 1) > 0) {
      }
      ::_exit(0);
    }
    ::close(fds[0]);
    write_fd_ = fds[1];
  }
  ~Child() {
    end();
    reap();
  }
  long pid() const { return pid_; }
  /// Lets the child exit; it stays a zombie until reap().
  void end() {
    if (write_fd_ >= 0) ::close(write_fd_);
    write_fd_ = -1;
  }
  void reap() {
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int write_fd_ = -1;
};

bool proc_readable() { return read_proc_stat(::getpid()).has_value(); }

// Polls until /proc shows the state, for at most five seconds.
bool wait_for_state(long pid, char state) {
  for (int i = 0; i < 500; ++i) {
    auto stat = read_proc_stat(pid);
    if (stat && stat->state == state) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(ParseProcStat, ReadsStateAndStartTimeAfterTheLastParenthesis) {
  // A command name may hold spaces and ')' itself.
  const std::string line =
      "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 987654321 1000 10 "
      "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  auto stat = parse_proc_stat(line);
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->start_time, 987654321u);
}

TEST(ParseProcStat, RejectsTextOfAnotherShape) {
  EXPECT_FALSE(parse_proc_stat(""));
  EXPECT_FALSE(parse_proc_stat("4242 no parenthesis S 1 2 3"));
  EXPECT_FALSE(parse_proc_stat("4242 (short) S 1 4242"));                        // no field 22
  EXPECT_FALSE(parse_proc_stat("4242 (x) SS 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 1"));  // state is one char
  EXPECT_FALSE(parse_proc_stat("4242 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5x 1"));  // start not a number
  EXPECT_FALSE(parse_proc_stat(")( S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 1"));
}

TEST(ReadProcStat, ThisProcessIsRunningAndHasAStartTime) {
  if (!proc_readable()) GTEST_SKIP() << "no /proc here";
  auto stat = read_proc_stat(::getpid());
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->state, 'R');
  EXPECT_GT(stat->start_time, 0u);
  EXPECT_EQ(process_start_time(::getpid()), stat->start_time);
  EXPECT_FALSE(read_proc_stat(0x3fffffff));  // above any pid_max
}

TEST(ProcessAlive, NoProcessIsNotAlive) {
  EXPECT_FALSE(process_alive(0, std::nullopt));
  EXPECT_FALSE(process_alive(-1, std::nullopt));
  EXPECT_FALSE(process_alive(0x3fffffff, std::nullopt));
}

TEST(ProcessAlive, AChildIsAliveUntilItExitsThenItsZombieIsNot) {
  if (!proc_readable()) GTEST_SKIP() << "no /proc here";
  Child child;
  auto start = process_start_time(child.pid());
  ASSERT_TRUE(start);
  EXPECT_TRUE(process_alive(child.pid(), std::nullopt));
  EXPECT_TRUE(process_alive(child.pid(), start));

  child.end();
  ASSERT_TRUE(wait_for_state(child.pid(), 'Z')) << "the unreaped child never showed as a zombie";
  EXPECT_EQ(::kill(static_cast<pid_t>(child.pid()), 0), 0) << "a zombie still answers kill(pid, 0)";
  EXPECT_FALSE(process_alive(child.pid(), std::nullopt));
  EXPECT_FALSE(process_alive(child.pid(), start));

  const long pid = child.pid();
  child.reap();
  EXPECT_FALSE(process_alive(pid, std::nullopt));
  EXPECT_FALSE(process_alive(pid, start));
}

TEST(ProcessAlive, TheRightPidWithAnotherStartTimeIsAnotherProcess) {
  if (!proc_readable()) GTEST_SKIP() << "no /proc here";
  Child child;
  auto start = process_start_time(child.pid());
  ASSERT_TRUE(start);
  EXPECT_FALSE(process_alive(child.pid(), *start + 1));
  EXPECT_FALSE(process_alive(child.pid(), *start - 1));
  EXPECT_TRUE(process_alive(child.pid(), *start));
}

}  // namespace
}  // namespace agentry::core
