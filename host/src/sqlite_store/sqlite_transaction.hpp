#pragma once
// store::Transaction over one SQLite connection: the writer's (inside the write
// queue's transaction) or a pooled reader's (inside a read snapshot).

#include "sqlite_store/repositories.hpp"

namespace agentry::sqlite_store {

using SqliteTransaction = EngineTransaction;

}  // namespace agentry::sqlite_store
