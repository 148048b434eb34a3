#pragma once
// Persistence of sessions (execution windows of a run) and attempts (backend
// invocations inside a session).

#include "core/run.hpp"

#include <map>
#include <optional>
#include <vector>

namespace agentry::store {

class SessionRepository {
 public:
  virtual ~SessionRepository() = default;

  virtual void insert(const core::Session& session) = 0;
  virtual void update(const core::Session& session) = 0;
  virtual std::optional<core::Session> get(std::string_view run_id, int index) = 0;
  virtual std::vector<core::Session> list(std::string_view run_id) = 0;
  /// The latest session of each run, for list pages.
  virtual std::map<std::string, core::Session> latest(const std::vector<std::string>& run_ids) = 0;

  virtual void insert_attempt(const core::Attempt& attempt) = 0;
  virtual void update_attempt(const core::Attempt& attempt) = 0;
  virtual std::vector<core::Attempt> list_attempts(std::string_view run_id) = 0;

  /// Removes sessions and attempts (reset).
  virtual void remove_all(std::string_view run_id) = 0;
};

}  // namespace agentry::store
