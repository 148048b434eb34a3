#include "store/database.hpp"

#include "store/migrations.hpp"

namespace agentry::store {
namespace {

constexpr std::size_t max_idle_readers = 8;

void configure(Connection& c, bool synchronous_full) {
  c.exec("PRAGMA foreign_keys = ON");
  c.exec(synchronous_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
}

}  // namespace

Database::Database(std::filesystem::path path, DatabaseOptions options)
    : path_(std::move(path)), options_(options) {}

Database::~Database() = default;

core::Result<std::unique_ptr<Database>> Database::open(const std::filesystem::path& path, DatabaseOptions options) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec)
    return core::fail(core::ErrorCode::internal,
                      "cannot create directory " + path.parent_path().string() + ": " + ec.message());
  return guard([&]() -> core::Result<std::unique_ptr<Database>> {
    auto connection = Connection::open(path, false);
    configure(connection, options.synchronous_full);
    if (auto migrated = migrate(connection, path); !migrated.ok()) return migrated.failure();
    connection.exec("PRAGMA journal_mode = WAL");  // after migrate: a refused newer database stays untouched
    std::unique_ptr<Database> db(new Database(path, options));
    db->writer_ = std::make_unique<WriteQueue>(std::move(connection), options.max_batch);
    return db;
  });
}

std::unique_ptr<Connection> Database::open_reader() {
  auto c = std::make_unique<Connection>(Connection::open(path_, true));
  c->exec("PRAGMA foreign_keys = ON");
  return c;
}

Database::Lease::Lease(Database& db) : db_(db) {
  {
    std::lock_guard lock(db_.readers_mutex_);
    if (!db_.idle_readers_.empty()) {
      connection_ = std::move(db_.idle_readers_.back());
      db_.idle_readers_.pop_back();
    }
  }
  if (!connection_) connection_ = db_.open_reader();
}

Database::Lease::~Lease() {
  std::lock_guard lock(db_.readers_mutex_);
  if (db_.idle_readers_.size() < max_idle_readers) db_.idle_readers_.push_back(std::move(connection_));
}

}  // namespace agentry::store
