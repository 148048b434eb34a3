#include "sqlite_store/sqlite_store.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::open_database;
using testing::connection_of;
using testing::query_int;
using testing::read;
using testing::TempDir;
using testing::write;

TEST(Database, OpenCreatesMissingDirectoriesAndTheFile) {
  TempDir dir;
  const auto path = dir.path() / "a" / "b" / "agentry.db";
  auto db = open_database(path);
  EXPECT_EQ(db->path(), path);
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST(Database, OpenFailsWithAMessageNamingTheDirectoryItCannotCreate) {
  TempDir dir;
  const auto blocker = dir.path() / "a-file";
  std::ofstream(blocker) << "not a directory";
  auto db = SqliteStore::open(blocker / "sub" / "agentry.db");
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.error().code, core::ErrorCode::internal);
  EXPECT_NE(db.error().message.find((blocker / "sub").string()), std::string::npos) << db.error().message;
}

TEST(Database, OpenFailsWhenThePathIsNotADatabase) {
  TempDir dir;
  const auto path = dir.path() / "garbage.db";
  std::ofstream(path) << std::string(4096, 'x');
  auto db = SqliteStore::open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_FALSE(db.error().message.empty());
}

TEST(Database, ReadReportsStoreFailuresAsErrors) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db");
  auto r = db->read([](store::Transaction& c) -> core::Result<int> {
    connection_of(c).exec("SELECT * FROM no_such_table");
    return 1;
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::ErrorCode::internal);
  EXPECT_NE(r.error().message.find("no_such_table"), std::string::npos) << r.error().message;
  // The pool is still usable afterwards.
  EXPECT_EQ(read(*db, [](store::Transaction& c) { return query_int(c, "SELECT 7"); }), 7);
}

TEST(Database, ReaderConnectionsCannotWrite) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db");
  auto r = db->read([](store::Transaction& c) -> core::Result<bool> {
    c.runs().insert(testing::make_run("sneaky"));
    return true;
  });
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(read(*db, [](store::Transaction& c) { return c.runs().get("sneaky"); }).has_value());
}

TEST(Database, ManyThreadsReadWhileTheWriterCommits) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db", testing::fast_options);
  constexpr int writers = 2, readers = 6, per_thread = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w)
    threads.emplace_back([&, w] {
      for (int i = 0; i < per_thread; ++i) {
        auto r = db->write<bool>([&](store::Transaction& c) -> core::Result<bool> {
          c.runs().insert(testing::make_run("w" + std::to_string(w) + "-" + std::to_string(i)));
          return true;
        });
        if (!r.ok()) ++failures;
      }
    });
  for (int t = 0; t < readers; ++t)
    threads.emplace_back([&] {
      std::int64_t last = 0;
      for (int i = 0; i < per_thread; ++i) {
        auto r = db->read([](store::Transaction& c) -> core::Result<std::int64_t> { return query_int(c, "SELECT count(*) FROM runs"); });
        if (!r.ok() || *r < last) ++failures;  // a reader never sees committed rows disappear
        if (r.ok()) last = *r;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(read(*db, [](store::Transaction& c) { return query_int(c, "SELECT count(*) FROM runs"); }), writers * per_thread);
}

}  // namespace
}  // namespace agentry::sqlite_store
