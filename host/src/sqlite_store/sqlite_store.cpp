#include "sqlite_store/sqlite_store.hpp"

#include "sqlite_store/background_checkpoints.hpp"
#include "sqlite_store/batch_writer.hpp"
#include "sqlite_store/migrations.hpp"
#include "sqlite_store/sqlite_transaction.hpp"

namespace agentry::sqlite_store {
namespace {

constexpr std::size_t max_idle_readers = 8;

void configure(Connection& c, bool synchronous_full) {
  c.exec("PRAGMA foreign_keys = ON");
  c.exec(synchronous_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
}

}  // namespace

SqliteStore::SqliteStore(std::filesystem::path path, SqliteOptions options)
    : path_(std::move(path)), options_(options) {}

SqliteStore::~SqliteStore() = default;

core::Result<std::unique_ptr<SqliteStore>> SqliteStore::open(const std::filesystem::path& path,
                                                             SqliteOptions options) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec)
    return core::fail(core::ErrorCode::internal,
                      "cannot create directory " + path.parent_path().string() + ": " + ec.message());
  return guard([&]() -> core::Result<std::unique_ptr<SqliteStore>> {
    // The one connection that writes gathers each commit's WAL writes into one; with
    // synchronous=FULL only, where each commit's sync writes them and reports a failure.
    auto connection = Connection::open(path, false, options.synchronous_full);
    configure(connection, options.synchronous_full);
    if (auto migrated = migrate(connection, path); !migrated.ok()) return migrated.failure();
    connection.exec("PRAGMA journal_mode = WAL");  // after migrate: a refused newer database stays untouched
    auto checkpoints = std::make_shared<BackgroundCheckpoints>(path, options.synchronous_full);
    connection.on_wal_commit([checkpoints](int frames, const std::function<void()>& checkpoint_here) {
      checkpoints->committed(frames, checkpoint_here);
    });
    std::unique_ptr<SqliteStore> db(new SqliteStore(path, options));
    db->writer_ = std::make_unique<store::WriteQueue>(std::make_unique<BatchWriter>(std::move(connection)),
                                                     options.max_batch);
    return db;
  });
}

void SqliteStore::run_read(const std::function<void(store::Transaction&)>& fn) {
  auto reader = borrow_reader();
  // One snapshot for the whole read, so a page and the counts beside it agree even
  // while the writer commits.
  reader->run("BEGIN");
  try {
    SqliteTransaction transaction(*reader);
    fn(transaction);
    reader->run("COMMIT");
  } catch (...) {
    bool reusable = true;
    try {
      reader->exec("ROLLBACK");
    } catch (const StoreError&) {
      reusable = false;  // in an unknown state: dropped rather than pooled
    }
    if (reusable) give_back(std::move(reader));
    throw;
  }
  give_back(std::move(reader));
}

std::unique_ptr<Connection> SqliteStore::borrow_reader() {
  {
    std::lock_guard lock(readers_mutex_);
    if (!idle_readers_.empty()) {
      auto reader = std::move(idle_readers_.back());
      idle_readers_.pop_back();
      return reader;
    }
  }
  auto c = std::make_unique<Connection>(Connection::open(path_, true));
  c->exec("PRAGMA foreign_keys = ON");
  return c;
}

void SqliteStore::give_back(std::unique_ptr<Connection> reader) {
  std::lock_guard lock(readers_mutex_);
  if (idle_readers_.size() < max_idle_readers) idle_readers_.push_back(std::move(reader));
}

}  // namespace agentry::sqlite_store
