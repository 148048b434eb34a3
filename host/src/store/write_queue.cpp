#include "store/write_queue.hpp"

#include "core/log.hpp"
#include "core/metrics.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>

namespace agentry::store {
namespace {

struct WriterMetrics {
  core::metrics::Gauge& depth;
  core::metrics::Histogram& commit_seconds;
  core::metrics::Counter& jobs;
  core::metrics::Counter& failed_transactions;
  core::metrics::Counter& durable_events;
  core::metrics::Counter& live_events;
  core::metrics::Counter& cpu_seconds;
};

WriterMetrics& writer_metrics() {
  auto& r = core::metrics::registry();
  static WriterMetrics m{
      r.gauge("agentry_store_write_queue_depth", "Write jobs waiting for the store's writer."),
      r.histogram("agentry_store_commit_seconds",
                  "Time to write and commit one group-commit transaction (its jobs and the COMMIT).",
                  core::metrics::latency_buckets()),
      r.counter("agentry_store_write_jobs_total", "Write jobs committed."),
      r.counter("agentry_store_failed_transactions_total", "Write transactions that failed and were rolled back."),
      r.counter("agentry_timeline_events_total", "Timeline events written, by kind of persistence.",
                {{"persistence", "durable"}}),
      r.counter("agentry_timeline_events_total", "Timeline events written, by kind of persistence.",
                {{"persistence", "live"}}),
      // The writer is the one thread every write waits for: its CPU per event or per
      // run says how close the store is to its limit (benchmarks/README.md).
      r.counter("agentry_store_writer_cpu_seconds_total",
                "CPU time of the store's writer thread (running write jobs, committing, publishing commits)."),
  };
  return m;
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

bool must_retry(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const StoreError& e) {
    return e.kind() == StoreError::Kind::retry;
  } catch (...) {
    return false;
  }
}

}  // namespace

WriteQueue::WriteQueue(std::unique_ptr<BatchWriter> writer, std::size_t max_batch)
    : writer_(std::move(writer)), max_batch_(max_batch), thread_([this] { run(); }) {}

WriteQueue::~WriteQueue() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

std::future<core::Result<void>> WriteQueue::submit(WriteJob job) {
  auto promise = std::make_shared<std::promise<core::Result<void>>>();
  auto future = promise->get_future();
  submit(std::move(job), [promise](core::Result<void> result) { promise->set_value(std::move(result)); });
  return future;
}

void WriteQueue::submit(WriteJob job, WriteDone done, std::optional<BulkWrite> bulk) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      auto& lane = bulk ? bulk_ : pending_;
      lane.push_back(Pending{std::move(job), std::move(done), bulk ? bulk->weight : 0});
      writer_metrics().depth.set(static_cast<double>(pending_.size() + bulk_.size()));
      done = nullptr;
    }
  }
  if (done) done(core::fail(core::ErrorCode::internal, "the store is shutting down"));
  else wake_.notify_one();
}

void WriteQueue::set_timeline_listener(TimelineListener listener) {
  // Counted here, where every committed append passes.
  if (listener) listener = [inner = std::move(listener)](const std::string& run_id, std::int64_t base,
                                           std::vector<core::TimelineEvent>&& events) {
    auto& m = writer_metrics();
    const auto live = std::count_if(events.begin(), events.end(), [](const auto& e) { return e.ephemeral; });
    if (live > 0) m.live_events.inc(static_cast<double>(live));
    if (events.size() > static_cast<std::size_t>(live))
      m.durable_events.inc(static_cast<double>(events.size() - static_cast<std::size_t>(live)));
    inner(run_id, base, std::move(events));
  };
  // Installed on the writer thread, between batches, so no append sees half of it.
  auto done = submit([&](Transaction&) -> core::Result<void> {
    writer_->commit_actions().set_timeline_listener(std::move(listener));
    return core::ok();
  });
  (void)done.get();
}

WriteStats WriteQueue::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void WriteQueue::run() {
  double cpu_counted = thread_cpu_seconds();
  for (;;) {
    std::deque<Pending> batch;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !pending_.empty() || !bulk_.empty(); });
      // Drain what is queued even when stopping, so no accepted write is dropped.
      if (pending_.empty() && bulk_.empty()) return;
      while (!pending_.empty() && batch.size() < max_batch_) {
        batch.push_back(std::move(pending_.front()));
        pending_.pop_front();
      }
      // Then bulk writes, as much as keeps the transaction short (at least one).
      std::size_t weight = 0;
      while (!bulk_.empty() && batch.size() < max_batch_ &&
             (weight == 0 || weight + bulk_.front().weight <= bulk_weight_per_transaction)) {
        weight += std::max<std::size_t>(1, bulk_.front().weight);
        batch.push_back(std::move(bulk_.front()));
        bulk_.pop_front();
      }
      writer_metrics().depth.set(static_cast<double>(pending_.size() + bulk_.size()));
    }
    write_batch(batch);
    const double cpu = thread_cpu_seconds();
    writer_metrics().cpu_seconds.inc(cpu - cpu_counted);
    cpu_counted = cpu;
  }
}

void WriteQueue::try_batch(std::deque<Pending>& batch, std::vector<core::Result<void>>& results) {
  results.clear();
  writer_->begin();
  // A job alone in its transaction needs no savepoint (a round trip each on a server):
  // when it fails, the whole transaction is rolled back instead.
  const bool alone = batch.size() == 1;
  for (auto& item : batch) {
    if (!alone) writer_->savepoint();
    const std::size_t mark = writer_->commit_actions().mark();
    // A job that lost a race to another writer fails the whole transaction (guard_job
    // lets that escape), and write_batch runs the batch again.
    core::Result<void> r = guard_job([&]() -> core::Result<void> { return item.job(writer_->transaction()); });
    if (r.ok()) {
      if (!alone) writer_->release();
    } else if (alone) {
      writer_->commit_actions().drop(mark);
      writer_->rollback();
      results.push_back(std::move(r));
      return;
    } else {
      writer_->commit_actions().drop(mark);
      writer_->rollback_to_savepoint();
      writer_->release();
    }
    results.push_back(std::move(r));
  }
  writer_->commit();
}

void WriteQueue::write_batch(std::deque<Pending>& batch) {
  std::vector<core::Result<void>> results;
  results.reserve(batch.size());
  auto& metrics = writer_metrics();
  for (int attempt = 0;; ++attempt) {
    std::exception_ptr error;
    const auto started = std::chrono::steady_clock::now();
    try {
      try_batch(batch, results);
      metrics.commit_seconds.observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    } catch (...) {
      error = std::current_exception();
    }
    if (!error) break;
    writer_->rollback();
    writer_->commit_actions().drop(0);
    if (attempt < writer_->max_retries() && must_retry(error)) continue;
    metrics.failed_transactions.inc();
    auto failure = guard([&]() -> core::Result<void> { std::rethrow_exception(error); });
    core::log_error("write transaction failed",
                    {{"error", failure.error().message}, {"jobs", std::to_string(batch.size())}});
    for (auto& item : batch) item.done(failure);
    return;
  }
  publish_commit();
  {
    std::lock_guard lock(mutex_);
    stats_.jobs += batch.size();
    stats_.transactions += 1;
  }
  metrics.jobs.inc(static_cast<double>(batch.size()));
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i].done(std::move(results[i]));
}

void WriteQueue::publish_commit() {
  // Published before the writers hear back, so what a caller committed is already
  // visible to subscribers when its call returns.
  for (auto& action : writer_->commit_actions().take()) {
    try {
      action();
    } catch (const std::exception& e) {
      core::log_error("publishing a commit failed", {{"error", e.what()}});
    }
  }
}

}  // namespace agentry::store
