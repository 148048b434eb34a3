#pragma once
// Persistence of sessions (execution windows of a run) and attempts (backend
// invocations inside a session).

#include "core/run.hpp"
#include "store/sqlite.hpp"

#include <map>
#include <optional>
#include <vector>

namespace agentry::store {

class SessionRepository {
 public:
  static void insert(Connection& c, const core::Session& session);
  static void update(Connection& c, const core::Session& session);
  static std::optional<core::Session> get(Connection& c, std::string_view run_id, int index);
  static std::vector<core::Session> list(Connection& c, std::string_view run_id);
  /// The latest session of each run, for list pages.
  static std::map<std::string, core::Session> latest(Connection& c, const std::vector<std::string>& run_ids);

  static void insert_attempt(Connection& c, const core::Attempt& attempt);
  static void update_attempt(Connection& c, const core::Attempt& attempt);
  static std::vector<core::Attempt> list_attempts(Connection& c, std::string_view run_id);

  /// Removes sessions and attempts (reset).
  static void remove_all(Connection& c, std::string_view run_id);
};

}  // namespace agentry::store
