#pragma once
// The embedded store: one SQLite file under AGENTRY_HOME. Opens (and migrates) it,
// owns the single writer, and lends reader connections. WAL mode lets readers run
// while the writer commits; foreign keys are on for every connection.

#include "core/result.hpp"
#include "sqlite_store/sqlite.hpp"
#include "store/store.hpp"
#include "store/write_queue.hpp"

#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

namespace agentry::sqlite_store {

struct SqliteOptions {
  /// synchronous=FULL (fsync at each commit) survives power loss; NORMAL survives
  /// process crashes only. Group commit makes FULL affordable.
  bool synchronous_full = true;
  std::size_t max_batch = 512;
};

class SqliteStore final : public store::Store {
 public:
  static core::Result<std::unique_ptr<SqliteStore>> open(const std::filesystem::path& path,
                                                         SqliteOptions options = {});
  ~SqliteStore() override;

  std::future<core::Result<void>> submit(store::WriteJob job) override { return writer_->submit(std::move(job)); }
  void submit(store::WriteJob job, store::WriteDone done, std::optional<store::BulkWrite> bulk) override {
    writer_->submit(std::move(job), std::move(done), bulk);
  }
  void set_timeline_listener(store::TimelineListener listener) override {
    writer_->set_timeline_listener(std::move(listener));
  }
  void set_wakeup_listener(std::function<void(const std::string&)>) override {}
  store::WriteStats write_stats() const override { return writer_->stats(); }
  std::string describe() const override { return path_.string(); }
  bool shared() const override { return false; }

  const std::filesystem::path& path() const { return path_; }
  /// The single writer itself (its tests hold it with gated jobs).
  store::WriteQueue& writer() { return *writer_; }

 protected:
  void run_read(const std::function<void(store::Transaction&)>& fn) override;

 private:
  SqliteStore(std::filesystem::path path, SqliteOptions options);
  std::unique_ptr<Connection> borrow_reader();
  void give_back(std::unique_ptr<Connection> reader);

  std::filesystem::path path_;
  SqliteOptions options_;
  std::unique_ptr<store::WriteQueue> writer_;
  std::mutex readers_mutex_;
  std::vector<std::unique_ptr<Connection>> idle_readers_;
};

}  // namespace agentry::sqlite_store
