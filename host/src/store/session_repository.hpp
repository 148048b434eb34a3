#pragma once
// Persistence of sessions (execution windows of a run) and attempts (backend
// invocations inside a session).

#include "core/run.hpp"

#include <map>
#include <optional>
#include <string_view>
#include <vector>

namespace agentry::store {

/// The three columns latest() adds after a session's own (sessions aliased `s`): its
/// first and last attempt numbers and its attempt count, 0 without attempts. Standard
/// SQL, so both stores use it.
inline constexpr std::string_view session_attempt_range =
    "(SELECT coalesce(min(a.attempt_number), 0) FROM attempts a WHERE a.run_id = s.run_id AND a.session_index = s.session_index), "
    "(SELECT coalesce(max(a.attempt_number), 0) FROM attempts a WHERE a.run_id = s.run_id AND a.session_index = s.session_index), "
    "(SELECT count(*) FROM attempts a WHERE a.run_id = s.run_id AND a.session_index = s.session_index)";

class SessionRepository {
 public:
  virtual ~SessionRepository() = default;

  virtual void insert(const core::Session& session) = 0;
  virtual void update(const core::Session& session) = 0;
  virtual std::optional<core::Session> get(std::string_view run_id, int index) = 0;
  virtual std::vector<core::Session> list(std::string_view run_id) = 0;
  /// The latest session of each run, for list pages, with its attempt range
  /// (Session::first_attempt_number, last_attempt_number, attempt_count) and no prompt.
  virtual std::map<std::string, core::Session> latest(const std::vector<std::string>& run_ids) = 0;

  virtual void insert_attempt(const core::Attempt& attempt) = 0;
  virtual void update_attempt(const core::Attempt& attempt) = 0;
  virtual std::vector<core::Attempt> list_attempts(std::string_view run_id) = 0;

  /// Removes sessions and attempts (reset).
  virtual void remove_all(std::string_view run_id) = 0;
};

}  // namespace agentry::store
