// Which store the integration tests' daemons and CLIs use: the SQLite file under their
// AGENTRY_HOME (the default), or, with AGENTRY_TEST_STORE=postgresql, a PostgreSQL
// database per AGENTRY_HOME on the test binary's private cluster. Every process started
// on one home gets the same database, so restarts find what they left.
#pragma once

#include <filesystem>
#include <string>

#include "support/subprocess.hpp"

namespace agentry::test {

/// True when AGENTRY_TEST_STORE=postgresql.
[[nodiscard]] bool testing_on_postgresql();

/// The AGENTRY_STORE setting for processes on `home` ({} on SQLite); on PostgreSQL the
/// home's database is created on first use.
[[nodiscard]] EnvOverrides store_env(const std::filesystem::path& home);

/// Runs `sql` (portable between SQLite and PostgreSQL) on the store of `home`, as another
/// process would: the tests' way to stage what the API cannot. Throws on failure.
void exec_store_sql(const std::filesystem::path& home, const std::string& sql);

}  // namespace agentry::test
