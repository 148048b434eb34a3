#pragma once
// Starts waiting for a member able to take them (core/placement.hpp): a start, resume,
// dependency start, schedule or parent resume that reached a member whose labels,
// workspace roots or capacity do not fit the run leaves one here, with the run `ready`
// and saying why. Every member looks at them now and then; the one that claims a start
// (claim(): locked for its transaction, skipped by the others) opens the session and
// removes it in the same write, so each start happens exactly once.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::store {

struct WaitingStart {
  std::string run_id;
  std::optional<std::string> message;  ///< the follow-up, for a resume that gave one
  std::string trigger;                 ///< "start", "resume", "dependencies", "schedule", "child_completion"
  std::string actor;                   ///< who asked, for the audit record of the start
  bool automatic = false;              ///< a dependency start: only while the run still waits on them
  std::string since;                   ///< ISO 8601
};

class RunStartRepository {
 public:
  virtual ~RunStartRepository() = default;

  /// Records the run's waiting start, replacing one it had.
  virtual void put(const WaitingStart& start) = 0;
  virtual std::optional<WaitingStart> get(std::string_view run_id) = 0;
  /// The run's waiting start, locked until the transaction ends; nullopt when it has none
  /// or another member's transaction holds it (FOR UPDATE SKIP LOCKED on PostgreSQL).
  virtual std::optional<WaitingStart> claim(std::string_view run_id) = 0;
  virtual bool remove(std::string_view run_id) = 0;
  /// The longest waiting first.
  virtual std::vector<WaitingStart> oldest(int limit) = 0;
};

}  // namespace agentry::store
