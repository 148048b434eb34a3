#pragma once
// The shared store: one PostgreSQL database that several daemons use at once. Opens
// (and migrates, under an advisory lock) the database, owns this process's writer
// connection (group commit, store/write_queue.hpp) and lends reader connections, each
// read one REPEATABLE READ READ ONLY snapshot.

#include "core/result.hpp"
#include "pg_store/pg.hpp"
#include "pg_store/pg_listener.hpp"
#include "store/store.hpp"
#include "store/write_queue.hpp"

#include "core/ids.hpp"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace agentry::pg_store {

struct PgOptions {
  std::size_t max_batch = 512;
  /// Reader connections kept open between reads (more are opened under load).
  std::size_t max_idle_readers = 8;
};

class PgStore final : public store::Store {
 public:
  /// Connects to `uri` (a libpq URI), migrates the schema and starts the writer. A wrong
  /// URI, a refused login, an unreachable server and a newer schema are clear errors.
  static core::Result<std::unique_ptr<PgStore>> open(const std::string& uri, PgOptions options = {});
  ~PgStore() override;

  std::future<core::Result<void>> submit(store::WriteJob job) override { return writer_->submit(std::move(job)); }
  void submit(store::WriteJob job, store::WriteDone done, std::optional<store::BulkWrite> bulk) override {
    writer_->submit(std::move(job), std::move(done), bulk);
  }
  void set_timeline_listener(store::TimelineListener listener) override {
    writer_->set_timeline_listener(std::move(listener));
  }
  void set_wakeup_listener(std::function<void(const std::string& topic)> listener) override;
  store::WriteStats write_stats() const override { return writer_->stats(); }
  /// The URI with its password redacted.
  std::string describe() const override { return target_; }
  bool shared() const override { return true; }

  store::WriteQueue& writer() { return *writer_; }

 protected:
  void run_read(const std::function<void(store::Transaction&)>& fn) override;

 private:
  PgStore(std::string uri, PgOptions options);
  std::unique_ptr<Connection> borrow_reader();
  void give_back(std::unique_ptr<Connection> reader);

  std::string uri_;
  std::string target_;
  PgOptions options_;
  std::unique_ptr<store::WriteQueue> writer_;
  std::mutex readers_mutex_;
  std::vector<std::unique_ptr<Connection>> idle_readers_;
  /// Marks this process's own wake-ups, which its listener does not report.
  const std::string wake_tag_ = core::new_prefixed_id("w");
  std::mutex listener_mutex_;
  std::unique_ptr<Listener> listener_;  // last: stopped first
};

}  // namespace agentry::pg_store
