// The store's write-ahead log copied into the database off the writer's thread
// (sqlite_store/background_checkpoints.hpp), on real SQLite files.

#include "sqlite_store/background_checkpoints.hpp"
#include "store/event_repository.hpp"
#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::open_database;
using testing::query_int;
using testing::read;
using testing::TempDir;
using testing::write;

/// Commits `commits` batches of 16 notices of about 1 KiB each to run "r1".
void stream(store::Store& db, int commits) {
  const std::string payload = R"({"message":")" + std::string(1000, 'x') + R"("})";
  for (int i = 0; i < commits; ++i)
    write(db, [&](store::Transaction& c) {
      std::vector<core::TimelineEvent> batch(16);
      for (auto& e : batch) {
        e.kind = "notice";
        e.at = "2024-01-01T00:00:00.000Z";
        e.payload_json = payload;
      }
      c.timeline().append_batch("r1", batch);
    });
}

TEST(BackgroundCheckpoints, TheLogNeverGrowsPastTwiceTheWritersLimit) {
  TempDir dir;
  const auto path = dir.path() / "agentry.db";
  auto db = open_database(path);
  write(*db, [](store::Transaction& c) { c.runs().insert(testing::make_run("r1")); });
  stream(*db, 2000);  // about 32 MiB through a log the writer copies from 1,000 frames (4 MiB)
  // The log file keeps its largest size: twice the limit and one commit's frames at most
  // (the writer waits for the thread's copy there), whatever the thread's timing.
  const auto frame = 4096 + 24;
  EXPECT_LT(std::filesystem::file_size(path.string() + "-wal"),
            static_cast<std::uintmax_t>((2 * BackgroundCheckpoints::writer_copies_at + 64) * frame));
  EXPECT_EQ(read(*db, [](store::Transaction& c) { return query_int(c, "SELECT max(last_cursor) FROM timeline_batches"); }),
            2000 * 16);
}

TEST(BackgroundCheckpoints, WhatWasCommittedIsInTheDatabaseAfterAReopen) {
  TempDir dir;
  const auto path = dir.path() / "agentry.db";
  {
    auto db = open_database(path);
    write(*db, [](store::Transaction& c) { c.runs().insert(testing::make_run("r1")); });
    stream(*db, 700);
  }
  EXPECT_FALSE(std::filesystem::exists(path.string() + "-wal"));  // the last connection copied and removed it
  auto db = open_database(path);
  EXPECT_EQ(read(*db, [](store::Transaction& c) { return query_int(c, "SELECT count(*) FROM timeline_batches"); }), 700);
}

TEST(BackgroundCheckpoints, TheWriterCopiesTheLogItselfFromItsLimit) {
  TempDir dir;
  BackgroundCheckpoints checkpoints(dir.path() / "agentry.db", false);
  int copies = 0;
  const std::function<void()> copy = [&] { ++copies; };
  checkpoints.committed(10, copy);
  checkpoints.committed(BackgroundCheckpoints::wake_every + 10, copy);  // wakes the thread
  checkpoints.committed(BackgroundCheckpoints::writer_copies_at - 1, copy);
  EXPECT_EQ(copies, 0);
  checkpoints.committed(BackgroundCheckpoints::writer_copies_at, copy);
  checkpoints.committed(2 * BackgroundCheckpoints::writer_copies_at, copy);  // waits for the thread, if it copies
  EXPECT_EQ(copies, 2);
  checkpoints.committed(3, copy);  // the log started over
  EXPECT_EQ(copies, 2);
}

}  // namespace
}  // namespace agentry::sqlite_store
