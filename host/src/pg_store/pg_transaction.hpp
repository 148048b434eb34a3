#pragma once
// store::Transaction over one PostgreSQL connection: the writer's (inside the write
// queue's transaction) or a pooled reader's (inside a read snapshot).

#include "pg_store/repositories.hpp"

namespace agentry::pg_store {

using PgTransaction = EngineTransaction;

}  // namespace agentry::pg_store
