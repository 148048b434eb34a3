#include "sqlite_store/write_queue.hpp"

#include "core/log.hpp"

namespace agentry::sqlite_store {

WriteQueue::WriteQueue(Connection connection, std::size_t max_batch)
    : connection_(std::move(connection)), max_batch_(max_batch), thread_([this] { run(); }) {}

WriteQueue::~WriteQueue() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

std::future<core::Result<void>> WriteQueue::submit(WriteJob job) {
  Pending pending{std::move(job), {}};
  auto future = pending.done.get_future();
  {
    std::lock_guard lock(mutex_);
    if (stopping_) {
      pending.done.set_value(core::fail(core::ErrorCode::internal, "the store is shutting down"));
      return future;
    }
    pending_.push_back(std::move(pending));
  }
  wake_.notify_one();
  return future;
}

void WriteQueue::set_timeline_listener(store::TimelineListener listener) {
  auto done = submit([&](store::Transaction&) -> core::Result<void> {
    connection_.set_timeline_listener(std::move(listener));
    return core::ok();
  });
  (void)done.get();
}

store::WriteStats WriteQueue::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void WriteQueue::run() {
  for (;;) {
    std::deque<Pending> batch;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      // Drain what is queued even when stopping, so no accepted write is dropped.
      if (pending_.empty()) return;
      while (!pending_.empty() && batch.size() < max_batch_) {
        batch.push_back(std::move(pending_.front()));
        pending_.pop_front();
      }
    }
    write_batch(batch);
  }
}

void WriteQueue::write_batch(std::deque<Pending>& batch) {
  std::vector<core::Result<void>> results;
  results.reserve(batch.size());
  core::Result<void> transaction = guard([&]() -> core::Result<void> {
    connection_.exec("BEGIN IMMEDIATE");
    for (auto& item : batch) {
      connection_.exec("SAVEPOINT job");
      const std::size_t mark = connection_.after_commit_mark();
      core::Result<void> r = guard([&]() -> core::Result<void> { return item.job(transaction_); });
      if (r.ok()) {
        connection_.exec("RELEASE job");
      } else {
        connection_.drop_after_commit(mark);
        connection_.exec("ROLLBACK TO job");
        connection_.exec("RELEASE job");
      }
      results.push_back(std::move(r));
    }
    connection_.exec("COMMIT");
    return core::ok();
  });

  if (!transaction.ok()) {
    core::log_error("write transaction failed", {{"error", transaction.error().message},
                                                 {"jobs", std::to_string(batch.size())}});
    try {
      connection_.exec("ROLLBACK");
    } catch (const StoreError&) {
      // Nothing to roll back: BEGIN itself failed.
    }
    connection_.drop_after_commit(0);
    for (auto& item : batch) item.done.set_value(transaction.failure());
    return;
  }
  // Published before the writers hear back, so what a caller committed is already
  // visible to subscribers when its call returns.
  for (auto& action : connection_.take_after_commit()) {
    try {
      action();
    } catch (const std::exception& e) {
      core::log_error("publishing a commit failed", {{"error", e.what()}});
    }
  }
  {
    std::lock_guard lock(mutex_);
    stats_.jobs += batch.size();
    stats_.transactions += 1;
  }
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i].done.set_value(std::move(results[i]));
}

}  // namespace agentry::sqlite_store
