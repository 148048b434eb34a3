#pragma once
// The store's front door, whatever engine is behind it (sqlite_store/ is the embedded
// one). Writes go through one queue with group commit: a job runs inside its own
// savepoint of a shared transaction, and its result is delivered only after that
// transaction commits (durable before visible). Reads run on a pooled connection
// inside one snapshot. Nothing here names the engine underneath.

#include "core/result.hpp"
#include "core/run.hpp"
#include "store/store_error.hpp"
#include "store/transaction.hpp"

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentry::store {

using WriteJob = std::function<core::Result<void>(Transaction&)>;
/// Told of a job's result once its transaction committed (or failed).
using WriteDone = std::function<void(core::Result<void>)>;

/// Which queue a write waits in. Bulk writes (a live run's events) take what room a
/// transaction has after every interactive write (an API request, a run's state
/// change) and at most about WriteQueue::bulk_weight_per_transaction of their weight,
/// so a request never waits behind a backlog of events. Each lane commits in the order
/// it was given; the interactive lane may overtake the bulk one.
struct BulkWrite {
  std::size_t weight = 1;  // what the job writes, in events
};

/// Told, after commit, of each run's timeline events as they were written (durable
/// ones with their cursors, ephemeral ones in place), with `base`: the run's last
/// cursor before them.
using TimelineListener =
    std::function<void(const std::string& run_id, std::int64_t base, std::vector<core::TimelineEvent>&&)>;

struct WriteStats {
  std::uint64_t jobs = 0;
  std::uint64_t transactions = 0;
};

class Store {
 public:
  virtual ~Store() = default;

  /// Queues a job; the future resolves after the job's transaction commits (or fails).
  virtual std::future<core::Result<void>> submit(WriteJob job) = 0;
  /// Queues a job; `done` is called on the writer after its transaction commits (or
  /// fails), so it must only hand the result on (post it), never wait or write. With
  /// `bulk`, the job waits in the bulk lane.
  virtual void submit(WriteJob job, WriteDone done, std::optional<BulkWrite> bulk = std::nullopt) = 0;

  /// Runs `fn(Transaction&)` as one write and waits for the commit. `fn` runs on the
  /// writer: it must not call back into the store.
  template <class T, class F>
  core::Result<T> write(F&& fn) {
    std::optional<core::Result<T>> out;
    auto done = submit([&](Transaction& t) -> core::Result<void> {
      out.emplace(guard_job([&]() -> core::Result<T> { return fn(t); }));
      if (!out->ok()) return out->failure();
      return core::ok();
    });
    auto committed = done.get();
    if (!committed.ok()) return committed.failure();
    return std::move(*out);
  }

  /// Runs `fn(Transaction&)` as one write and calls `done` with what it returned once
  /// the write committed (or with why it failed), on the writer thread: `done` must
  /// only hand the result on. Nobody waits for the commit.
  template <class T, class F>
  void write_then(F fn, std::function<void(core::Result<T>)> done, std::optional<BulkWrite> bulk = std::nullopt) {
    auto out = std::make_shared<std::optional<core::Result<T>>>();
    submit(
        [out, fn = std::move(fn)](Transaction& t) mutable -> core::Result<void> {
          out->emplace(guard_job([&]() -> core::Result<T> { return fn(t); }));
          if (!(*out)->ok()) return (*out)->failure();
          return core::ok();
        },
        [out, done = std::move(done)](core::Result<void> committed) {
          if (!committed.ok()) done(committed.failure());
          else done(std::move(**out));
        },
        bulk);
  }

  /// Runs `fn(Transaction&)` over one consistent snapshot and returns what it returns
  /// (a core::Result).
  template <class F>
  auto read(F&& fn) -> decltype(fn(std::declval<Transaction&>())) {
    using R = decltype(fn(std::declval<Transaction&>()));
    std::optional<R> out;
    auto opened = guard([&]() -> core::Result<void> {
      run_read([&](Transaction& t) { out.emplace(guard([&]() -> R { return fn(t); })); });
      return core::ok();
    });
    if (!opened.ok()) return opened.failure();
    return std::move(*out);
  }

  /// Installs the one listener every committed timeline append is told of.
  virtual void set_timeline_listener(TimelineListener listener) = 0;

  /// Installs the one listener told of the topics other processes sharing the store woke
  /// (Transaction::wake), and of "changed" when another process committed anything
  /// (at most every 50 ms per process). nullptr stops listening. Nothing on SQLite.
  virtual void set_wakeup_listener(std::function<void(const std::string& topic)> listener) = 0;

  virtual WriteStats write_stats() const = 0;
  /// Where the data lives, for messages ("/home/me/.agentry/agentry.db").
  virtual std::string describe() const = 0;
  /// True when daemons on several machines may serve this store at once (PostgreSQL):
  /// whether a run's controller is alive is then read off its lease, never off a pid.
  virtual bool shared() const = 0;

 protected:
  /// Runs `fn` on a reader inside a snapshot; store failures throw StoreError.
  virtual void run_read(const std::function<void(Transaction&)>& fn) = 0;
};

}  // namespace agentry::store
