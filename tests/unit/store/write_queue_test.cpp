#include "sqlite_store/batch_writer.hpp"
#include "store/write_queue.hpp"

#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using namespace std::chrono_literals;
using store::WriteJob;
using testing::open_database;
using testing::connection_of;
using testing::query_int;
using testing::TempDir;

/// A job that holds the writer thread until open() is called, so that jobs submitted
/// meanwhile queue up and land together in the next batch. Declare a Gate after the
/// queue/database it blocks: its destructor opens it, so a failed assertion cannot
/// leave the writer blocked while the queue is being destroyed.
class Gate {
 public:
  Gate() : opened_(open_.get_future().share()) {}
  ~Gate() { open(); }
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  WriteJob job() {
    auto entered = entered_;
    auto opened = opened_;
    return [entered, opened](store::Transaction&) -> core::Result<void> {
      entered->set_value();
      opened.wait();
      return core::ok();
    };
  }
  /// Blocks until the writer is running the gate job.
  void wait_until_entered() { entered_future_.wait(); }
  /// Submits the gate job to `queue` and waits until the writer runs it: whatever is
  /// submitted next queues behind it. The gate job's own result.
  std::future<core::Result<void>> hold(store::WriteQueue& queue) {
    auto gated = queue.submit(job());
    wait_until_entered();
    return gated;
  }
  bool entered() { return entered_future_.wait_for(0s) == std::future_status::ready; }
  void open() {
    if (!is_open_.exchange(true)) open_.set_value();
  }

 private:
  std::shared_ptr<std::promise<void>> entered_ = std::make_shared<std::promise<void>>();
  std::future<void> entered_future_ = entered_->get_future();
  std::promise<void> open_;
  std::shared_future<void> opened_;
  std::atomic<bool> is_open_{false};
};

WriteJob create_items_table() {
  return [](store::Transaction& c) -> core::Result<void> {
    connection_of(c).exec("CREATE TABLE IF NOT EXISTS items (k INTEGER PRIMARY KEY)");
    return core::ok();
  };
}

void insert_item(store::Transaction& c, std::int64_t k) {
  auto s = connection_of(c).prepare("INSERT INTO items (k) VALUES (?)");
  s.bind(1, k);
  s.run();
}

WriteJob insert_job(std::int64_t k) {
  return [k](store::Transaction& c) -> core::Result<void> {
    insert_item(c, k);
    return core::ok();
  };
}

/// Counts rows on a brand-new read-only connection: what any other process would see now.
std::int64_t fresh_count(const std::filesystem::path& path, const std::string& where = "") {
  auto c = Connection::open(path, true);
  return query_int(c, "SELECT count(*) FROM items" + (where.empty() ? "" : " WHERE " + where));
}

void expect_ok(std::future<core::Result<void>>& f) {
  auto r = f.get();
  EXPECT_TRUE(r.ok()) << r.error().message;
}

TEST(WriteQueue, AJobAloneInItsTransactionThatFailsLeavesNothingAndTheNextCommits) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db");
  auto& queue = db->writer();
  ASSERT_TRUE(queue.submit(create_items_table()).get().ok());
  auto refused = queue.submit([](store::Transaction& c) -> core::Result<void> {
    insert_item(c, 1);
    return core::fail(core::ErrorCode::conflict, "refuses");
  }).get();
  EXPECT_EQ(refused.error().code, core::ErrorCode::conflict);
  std::promise<core::Result<void>> told;
  queue.submit([](store::Transaction& c) -> core::Result<void> {
    insert_item(c, 2);
    throw std::runtime_error("blew up");
  }, [&](core::Result<void> r) { told.set_value(std::move(r)); });
  EXPECT_FALSE(told.get_future().get().ok());
  auto next = queue.submit(insert_job(3));
  expect_ok(next);
  EXPECT_EQ(fresh_count(dir.path() / "agentry.db"), 1);
  EXPECT_EQ(fresh_count(dir.path() / "agentry.db", "k = 3"), 1);
}

TEST(WriteQueue, InteractiveWritesGoFirstAndBulkOnesTakeABoundedShareOfATransaction) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db");
  auto& queue = db->writer();
  ASSERT_TRUE(queue.submit(create_items_table()).get().ok());
  Gate gate;
  auto gated = gate.hold(queue);
  std::mutex mutex;
  std::vector<std::string> order;
  std::vector<std::uint64_t> transactions(4);  // by submission below
  auto job = [&](std::string name) -> WriteJob {
    return [&, name](store::Transaction&) -> core::Result<void> {
      std::lock_guard lock(mutex);
      order.push_back(name);
      return core::ok();
    };
  };
  std::vector<std::promise<void>> done(4);
  auto told = [&](int i) {
    return [&, i](core::Result<void> r) {
      EXPECT_TRUE(r.ok());
      {
        std::lock_guard lock(mutex);
        transactions[static_cast<std::size_t>(i)] = queue.stats().transactions;
      }
      done[static_cast<std::size_t>(i)].set_value();
    };
  };
  queue.submit(job("bulk 1"), told(0), store::BulkWrite{store::WriteQueue::bulk_weight_per_transaction});
  queue.submit(job("bulk 2"), told(1), store::BulkWrite{1});
  queue.submit(job("request 1"), told(2));
  queue.submit(job("request 2"), told(3));
  gate.open();
  expect_ok(gated);
  for (auto& d : done) d.get_future().wait();
  // The requests overtook the bulk writes; the first bulk write filled its transaction's
  // share, so the second waited for the next transaction.
  EXPECT_EQ(order, (std::vector<std::string>{"request 1", "request 2", "bulk 1", "bulk 2"}));
  EXPECT_EQ(transactions[2], transactions[0]);  // request 1 and bulk 1: one transaction
  EXPECT_LT(transactions[0], transactions[1]);  // bulk 2: the next
}

TEST(WriteQueue, AFailingJobRollsBackAloneWhileTheRestOfItsBatchCommits) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db");
  auto& queue = db->writer();
  ASSERT_TRUE(queue.submit(create_items_table()).get().ok());
  Gate gate;
  auto gated = gate.hold(queue);
  const auto before = queue.stats();

  auto first = queue.submit(insert_job(1));
  auto refuses = queue.submit([](store::Transaction& c) -> core::Result<void> {
    insert_item(c, 2);
    return core::fail(core::ErrorCode::conflict, "job two refuses");
  });
  auto violates = queue.submit([](store::Transaction& c) -> core::Result<void> {
    insert_item(c, 3);
    insert_item(c, 1);  // duplicate of the first job's row: throws StoreError
    return core::ok();
  });
  auto throws = queue.submit([](store::Transaction& c) -> core::Result<void> {
    insert_item(c, 4);
    throw std::runtime_error("job four blew up");
  });
  auto last = queue.submit(insert_job(5));
  gate.open();

  expect_ok(gated);
  expect_ok(first);
  auto r2 = refuses.get();
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().code, core::ErrorCode::conflict);
  EXPECT_EQ(r2.error().message, "job two refuses");
  auto r3 = violates.get();
  ASSERT_FALSE(r3.ok());
  EXPECT_EQ(r3.error().code, core::ErrorCode::internal);
  EXPECT_NE(r3.error().message.find("UNIQUE"), std::string::npos) << r3.error().message;
  auto r4 = throws.get();
  ASSERT_FALSE(r4.ok());
  EXPECT_NE(r4.error().message.find("job four blew up"), std::string::npos) << r4.error().message;
  expect_ok(last);

  const auto path = db->path();
  EXPECT_EQ(fresh_count(path), 2);
  EXPECT_EQ(fresh_count(path, "k IN (1, 5)"), 2);
  // All five jobs really shared one transaction (plus the gate's own).
  const auto after = queue.stats();
  EXPECT_EQ(after.jobs - before.jobs, 6u);
  EXPECT_EQ(after.transactions - before.transactions, 2u);
}

TEST(WriteQueue, AResultIsDeliveredOnlyAfterItsTransactionCommits) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db");
  auto& queue = db->writer();
  ASSERT_TRUE(queue.submit(create_items_table()).get().ok());
  const auto path = db->path();

  Gate first_gate;
  Gate second_gate;
  auto held = queue.submit(first_gate.job());
  first_gate.wait_until_entered();
  // These two queue up behind the first gate and are written in one batch: the insert,
  // then a job that holds that batch's transaction open.
  auto insert = queue.submit(insert_job(42));
  auto holder = queue.submit(second_gate.job());
  first_gate.open();
  second_gate.wait_until_entered();

  // The insert has run but its transaction has not committed: no result, nothing visible.
  EXPECT_EQ(insert.wait_for(0s), std::future_status::timeout);
  EXPECT_EQ(fresh_count(path, "k = 42"), 0);

  second_gate.open();
  expect_ok(insert);
  EXPECT_EQ(fresh_count(path, "k = 42"), 1);
  expect_ok(holder);
  expect_ok(held);
}

TEST(WriteQueue, AWriteIsVisibleToAFreshReaderAsSoonAsItsFutureResolves) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db");
  auto& queue = db->writer();
  ASSERT_TRUE(queue.submit(create_items_table()).get().ok());
  for (int k = 1; k <= 20; ++k) {
    auto f = queue.submit(insert_job(k));
    expect_ok(f);
    EXPECT_EQ(fresh_count(db->path()), k);
  }
}

TEST(WriteQueue, GroupCommitBatchesConcurrentSubmissions) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db", SqliteOptions{true, 512});
  auto& queue = db->writer();
  ASSERT_TRUE(queue.submit(create_items_table()).get().ok());
  Gate gate;
  auto gated = gate.hold(queue);
  const auto before = queue.stats();

  constexpr int threads = 8, per_thread = 250, total = threads * per_thread;
  std::vector<std::vector<std::future<core::Result<void>>>> futures(threads);
  std::vector<std::thread> submitters;
  for (int t = 0; t < threads; ++t)
    submitters.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) futures[t].push_back(queue.submit(insert_job(t * per_thread + i)));
    });
  for (auto& s : submitters) s.join();
  gate.open();

  expect_ok(gated);
  for (auto& per : futures)
    for (auto& f : per) expect_ok(f);
  EXPECT_EQ(fresh_count(db->path()), total);

  const auto after = queue.stats();
  const auto jobs = after.jobs - before.jobs;
  const auto transactions = after.transactions - before.transactions;
  EXPECT_EQ(jobs, static_cast<std::uint64_t>(total + 1));
  EXPECT_LT(transactions, jobs);
  EXPECT_LE(transactions, 1u + (total + 511) / 512) << "queued jobs were not batched";
}

TEST(WriteQueue, MaxBatchBoundsTheJobsInOneTransaction) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db", SqliteOptions{false, 10});
  auto& queue = db->writer();
  ASSERT_TRUE(queue.submit(create_items_table()).get().ok());
  Gate gate;
  auto gated = gate.hold(queue);
  const auto before = queue.stats();
  std::vector<std::future<core::Result<void>>> futures;
  for (int k = 0; k < 100; ++k) futures.push_back(queue.submit(insert_job(k)));
  gate.open();
  expect_ok(gated);
  for (auto& f : futures) expect_ok(f);
  const auto after = queue.stats();
  EXPECT_EQ(after.jobs - before.jobs, 101u);
  EXPECT_EQ(after.transactions - before.transactions, 11u);
  EXPECT_EQ(fresh_count(db->path()), 100);
}

TEST(WriteQueue, SubmittersRacingTheWriterLoseNothing) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db", testing::fast_options);
  auto& queue = db->writer();
  ASSERT_TRUE(queue.submit(create_items_table()).get().ok());
  constexpr int threads = 8, per_thread = 100;
  std::atomic<int> failures{0};
  std::vector<std::thread> submitters;
  for (int t = 0; t < threads; ++t)
    submitters.emplace_back([&, t] {
      std::vector<std::future<core::Result<void>>> mine;
      for (int i = 0; i < per_thread; ++i) {
        const int k = t * per_thread + i;
        if (i % 10 == 0) {
          // Some writers wait for each result, as request handlers do.
          auto r = db->write<int>([k](store::Transaction& c) -> core::Result<int> {
            insert_item(c, k);
            return k;
          });
          if (!r.ok() || *r != k) ++failures;
        } else {
          mine.push_back(queue.submit(insert_job(k)));
        }
      }
      for (auto& f : mine)
        if (!f.get().ok()) ++failures;
    });
  for (auto& s : submitters) s.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(fresh_count(db->path()), threads * per_thread);
}

TEST(WriteQueue, ExecuteReturnsTheJobsValueOrItsErrorAndRollsBackOnError) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db");
  ASSERT_TRUE(db->writer().submit(create_items_table()).get().ok());

  auto value = db->write<std::string>([](store::Transaction& c) -> core::Result<std::string> {
    insert_item(c, 7);
    return std::string("seven");
  });
  ASSERT_TRUE(value.ok()) << value.error().message;
  EXPECT_EQ(*value, "seven");

  auto refused = db->write<int>([](store::Transaction& c) -> core::Result<int> {
    insert_item(c, 8);
    return core::fail(core::ErrorCode::validation, "eight is not allowed");
  });
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, core::ErrorCode::validation);
  EXPECT_EQ(refused.error().message, "eight is not allowed");

  auto thrown = db->write<int>([](store::Transaction& c) -> core::Result<int> {
    insert_item(c, 9);
    throw StoreError("simulated failure", 1);
  });
  ASSERT_FALSE(thrown.ok());
  EXPECT_EQ(thrown.error().code, core::ErrorCode::internal);
  EXPECT_NE(thrown.error().message.find("simulated failure"), std::string::npos);

  EXPECT_EQ(fresh_count(db->path()), 1);
  EXPECT_EQ(fresh_count(db->path(), "k = 7"), 1);
}

TEST(WriteQueue, DestructionDrainsEveryQueuedJob) {
  TempDir dir;
  const auto path = dir.path() / "queue.db";
  auto queue = std::make_unique<store::WriteQueue>(std::make_unique<BatchWriter>(Connection::open(path, false)));
  ASSERT_TRUE(queue->submit(create_items_table()).get().ok());
  std::vector<std::future<core::Result<void>>> futures;
  {
    Gate gate;
    futures.push_back(queue->submit(gate.job()));
    gate.wait_until_entered();
    for (int k = 0; k < 300; ++k) futures.push_back(queue->submit(insert_job(k)));
    // Let the writer go only once destruction has (very likely) begun; the assertions
    // below hold either way.
    std::thread opener([&] {
      std::this_thread::sleep_for(20ms);
      gate.open();
    });
    queue.reset();
    opener.join();
  }
  for (auto& f : futures) {
    ASSERT_EQ(f.wait_for(0s), std::future_status::ready);
    expect_ok(f);
  }
  EXPECT_EQ(fresh_count(path), 300);
}

}  // namespace
}  // namespace agentry::sqlite_store
