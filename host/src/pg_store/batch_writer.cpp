#include "pg_store/batch_writer.hpp"

#include "core/log.hpp"

namespace agentry::pg_store {

void BatchWriter::begin() {
  if (!connection_.healthy()) {
    connection_.reset();
    if (!connection_.healthy())
      throw PgError("PostgreSQL at " + connection_.target() + " cannot be reached", std::string(sqlstate::connection_failure));
    core::log_info("reconnected to PostgreSQL", {{"target", connection_.target()}});
  }
  connection_.exec("BEGIN ISOLATION LEVEL REPEATABLE READ");
}

void BatchWriter::commit() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_changed_ >= std::chrono::milliseconds(50)) {
    connection_.notify("changed");
    last_changed_ = now;
  }
  connection_.exec("COMMIT");
}

void BatchWriter::rollback() noexcept {
  try {
    if (connection_.healthy()) connection_.exec("ROLLBACK");
  } catch (const PgError&) {
    // Nothing to roll back (BEGIN failed) or the connection went away: begin() reconnects.
  }
}

}  // namespace agentry::pg_store
