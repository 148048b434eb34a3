#pragma once
// The store's front door: opens (and migrates) the SQLite file, owns the single
// writer, and lends reader connections. WAL mode lets readers run while the writer
// commits; foreign keys are on for every connection.

#include "core/result.hpp"
#include "store/sqlite.hpp"
#include "store/write_queue.hpp"

#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

namespace agentry::store {

struct DatabaseOptions {
  /// synchronous=FULL (fsync at each commit) survives power loss; NORMAL survives
  /// process crashes only. Group commit makes FULL affordable.
  bool synchronous_full = true;
  std::size_t max_batch = 512;
};

class Database {
 public:
  static core::Result<std::unique_ptr<Database>> open(const std::filesystem::path& path,
                                                      DatabaseOptions options = {});
  ~Database();

  WriteQueue& writer() { return *writer_; }

  /// Runs `fn` with a reader connection borrowed from the pool. `fn` returns a core::Result.
  template <class F>
  auto read(F&& fn) -> decltype(fn(std::declval<Connection&>())) {
    return guard([&] {
      Lease lease(*this);
      return fn(lease.connection());
    });
  }

  /// Convenience for writers: see WriteQueue::execute.
  template <class T, class F>
  core::Result<T> write(F&& fn) {
    return writer_->template execute<T>(std::forward<F>(fn));
  }

  const std::filesystem::path& path() const { return path_; }

 private:
  class Lease {
   public:
    explicit Lease(Database& db);
    ~Lease();
    Connection& connection() { return *connection_; }

   private:
    Database& db_;
    std::unique_ptr<Connection> connection_;
  };

  Database(std::filesystem::path path, DatabaseOptions options);
  std::unique_ptr<Connection> open_reader();

  std::filesystem::path path_;
  DatabaseOptions options_;
  std::unique_ptr<WriteQueue> writer_;
  std::mutex readers_mutex_;
  std::vector<std::unique_ptr<Connection>> idle_readers_;
};

}  // namespace agentry::store
