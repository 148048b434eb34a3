#pragma once
// The SQLite implementation of each store repository (store/*_repository.hpp) and the
// transaction over them, declared once for every engine in store/engine_repositories.inc;
// their SQL lives in the matching .cpp files of this folder.

#include "store/approval_repository.hpp"
#include "store/run_start_repository.hpp"
#include "store/attachment_repository.hpp"
#include "store/daemon_repository.hpp"
#include "store/dependency_repository.hpp"
#include "store/event_repository.hpp"
#include "store/hook_audit_repository.hpp"
#include "store/lease_repository.hpp"
#include "store/notification_repository.hpp"
#include "store/parent_notification_repository.hpp"
#include "store/project_trust_repository.hpp"
#include "store/queued_message_repository.hpp"
#include "store/run_repository.hpp"
#include "store/run_request_repository.hpp"
#include "store/run_token_repository.hpp"
#include "store/schedule_repository.hpp"
#include "store/session_repository.hpp"
#include "store/task_repository.hpp"
#include "store/transaction.hpp"
#include "store/trigger_delivery_repository.hpp"
#include "store/usage_repository.hpp"
#include "sqlite_store/sqlite.hpp"

#include <functional>
#include <string_view>

namespace agentry::sqlite_store {

// The database's clock in epoch milliseconds (julianday counts days from noon, 4714 BC):
// what heartbeats and leases are stamped and judged by.
constexpr std::string_view now_ms_sql = "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)";

#include "store/engine_repositories.inc"

}  // namespace agentry::sqlite_store
