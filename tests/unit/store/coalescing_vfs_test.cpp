// The writer's VFS gathers a commit's WAL writes into one (sqlite_store/coalescing_vfs.hpp).
// What it must never change: a commit is in the file once COMMIT returns, for another
// connection and after the writing process is killed; large commits, checkpoints and
// WAL restarts read back whole.
#include "sqlite_store/sqlite.hpp"

#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdint>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace agentry::sqlite_store {
namespace {

Connection writer(const std::filesystem::path& path, const char* synchronous) {
  auto c = Connection::open(path, false, true);
  c.exec(std::string("PRAGMA synchronous = ") + synchronous);
  c.exec("PRAGMA journal_mode = WAL");
  c.exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  return c;
}

std::int64_t count(Connection& c) {
  auto s = c.prepare("SELECT count(*) FROM t");
  return s.step() ? s.column_int64(0) : -1;
}

void insert(Connection& c, std::int64_t id, std::size_t bytes) {
  auto s = c.prepare("INSERT INTO t (id, body) VALUES (?, ?)");
  s.bind(1, id).bind(2, std::string(bytes, static_cast<char>('a' + id % 26)));
  s.run();
}

std::string integrity(Connection& c) {
  auto s = c.prepare("PRAGMA integrity_check");
  return s.step() ? s.column_text(0) : "";
}

TEST(CoalescingVfs, EachCommitIsInTheFileForAnotherConnectionWhenItReturns) {
  for (const char* synchronous : {"FULL", "NORMAL"}) {
    SCOPED_TRACE(synchronous);
    test::TempDir dir;
    const auto path = dir.path() / "store.db";
    auto w = writer(path, synchronous);
    auto reader = Connection::open(path, true);  // the default VFS: its own file handles
    for (std::int64_t i = 1; i <= 200; ++i) {
      w.exec("BEGIN");
      insert(w, i, 3000);  // most of a page and an index entry: several frames a commit
      w.exec("COMMIT");
      ASSERT_EQ(count(reader), i);
    }
    EXPECT_EQ(integrity(reader), "ok");
  }
}

TEST(CoalescingVfs, CommitsLargerThanWhatItGathersReadBackWhole) {
  test::TempDir dir;
  const auto path = dir.path() / "store.db";
  auto w = writer(path, "FULL");
  w.exec("BEGIN");
  for (std::int64_t i = 1; i <= 600; ++i) insert(w, i, 5000);  // about 3 MiB: many 96 KiB pieces
  w.exec("COMMIT");
  auto reader = Connection::open(path, true);
  EXPECT_EQ(count(reader), 600);
  auto s = reader.prepare("SELECT sum(length(body)) FROM t");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.column_int64(0), 600 * 5000);
  EXPECT_EQ(integrity(reader), "ok");
}

TEST(CoalescingVfs, CheckpointsAndRestartsOfTheLogKeepEveryCommit) {
  test::TempDir dir;
  const auto path = dir.path() / "store.db";
  {
    auto w = writer(path, "FULL");
    w.exec("PRAGMA wal_autocheckpoint = 8");  // a checkpoint, then a restart of the log, every few commits
    for (std::int64_t i = 1; i <= 400; ++i) {
      w.exec("BEGIN");
      insert(w, i, 1500);
      if (i % 3 == 0) w.exec("DELETE FROM t WHERE id = " + std::to_string(i - 1));
      w.exec("COMMIT");
    }
  }
  auto reader = Connection::open(path, true);
  EXPECT_EQ(count(reader), 400 - 133);
  EXPECT_EQ(integrity(reader), "ok");
}

// A process killed right after COMMIT returned: the commit is there when the file is
// opened again (what the daemon acknowledges to a client after its commit).
TEST(CoalescingVfs, AKilledWriterLosesNoCommitThatReturned) {
  test::TempDir dir;
  const auto path = dir.path() / "store.db";
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    auto w = writer(path, "FULL");
    for (std::int64_t i = 1;; ++i) {
      w.exec("BEGIN");
      insert(w, i, 2000);
      w.exec("COMMIT");
      const auto acknowledged = static_cast<std::uint32_t>(i);
      if (::write(pipe_fds[1], &acknowledged, sizeof acknowledged) != sizeof acknowledged) ::_exit(1);
    }
  }
  ::close(pipe_fds[1]);
  std::uint32_t last = 0, got = 0;
  while (last < 300 && ::read(pipe_fds[0], &got, sizeof got) == sizeof got) last = got;
  ::kill(child, SIGKILL);
  while (::read(pipe_fds[0], &got, sizeof got) == sizeof got) last = got;  // acknowledged before it died
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_GE(last, 300u);
  auto c = Connection::open(path, false);
  EXPECT_GE(count(c), static_cast<std::int64_t>(last));
  EXPECT_EQ(integrity(c), "ok");
}

}  // namespace
}  // namespace agentry::sqlite_store
