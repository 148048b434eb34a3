#include "pg_store/pg_store.hpp"

#include "pg_store/batch_writer.hpp"
#include "pg_store/migrations.hpp"
#include "pg_store/pg_transaction.hpp"
#include "core/ids.hpp"

namespace agentry::pg_store {

PgStore::PgStore(std::string uri, PgOptions options)
    : uri_(std::move(uri)), target_(redact_uri(uri_)), options_(options) {}

PgStore::~PgStore() = default;

void PgStore::set_wakeup_listener(std::function<void(const std::string& topic)> listener) {
  std::lock_guard lock(listener_mutex_);
  listener_.reset();  // joins its thread: the old callback is never called again
  if (listener) listener_ = std::make_unique<Listener>(uri_, wake_tag_, std::move(listener));
}

core::Result<std::unique_ptr<PgStore>> PgStore::open(const std::string& uri, PgOptions options) {
  auto connection = Connection::open(uri);
  if (!connection) return connection.failure();
  return store::guard([&]() -> core::Result<std::unique_ptr<PgStore>> {
    if (auto migrated = migrate(*connection); !migrated.ok()) return migrated.failure();
    std::unique_ptr<PgStore> db(new PgStore(uri, options));
    connection->set_wake_tag(db->wake_tag_);
    db->writer_ = std::make_unique<store::WriteQueue>(std::make_unique<BatchWriter>(std::move(*connection)),
                                                      options.max_batch);
    return db;
  });
}

void PgStore::run_read(const std::function<void(store::Transaction&)>& fn) {
  std::unique_ptr<Connection> reader;
  for (std::size_t tried = 0;; ++tried) {
    reader = borrow_reader();
    try {
      // One snapshot for the whole read, so a page and the counts beside it agree even
      // while writers commit.
      reader->exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      break;
    } catch (const PgError&) {
      // A pooled connection the server closed meanwhile (it restarted) learns so only
      // from its next statement. Nothing of the read ran: the next one, or a new one,
      // takes it; a new one that fails too is the answer.
      if (tried >= options_.max_idle_readers) throw;
    }
  }
  try {
    PgTransaction transaction(*reader);
    fn(transaction);
    reader->exec("COMMIT");
  } catch (...) {
    bool reusable = reader->healthy();
    try {
      if (reusable) reader->exec("ROLLBACK");
    } catch (const PgError&) {
      reusable = false;  // in an unknown state: dropped rather than pooled
    }
    if (reusable) give_back(std::move(reader));
    throw;
  }
  give_back(std::move(reader));
}

std::unique_ptr<Connection> PgStore::borrow_reader() {
  {
    std::lock_guard lock(readers_mutex_);
    while (!idle_readers_.empty()) {
      auto reader = std::move(idle_readers_.back());
      idle_readers_.pop_back();
      if (reader->healthy()) return reader;
    }
  }
  auto opened = Connection::open(uri_);
  if (!opened) throw PgError(opened.error().message, std::string(sqlstate::connection_failure));
  return std::make_unique<Connection>(std::move(*opened));
}

void PgStore::give_back(std::unique_ptr<Connection> reader) {
  std::lock_guard lock(readers_mutex_);
  if (idle_readers_.size() < options_.max_idle_readers) idle_readers_.push_back(std::move(reader));
}

}  // namespace agentry::pg_store
