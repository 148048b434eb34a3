#pragma once
// Parent completion: delivering a child session's end to its parent, exactly once
// (parent_notifications.hpp says how), as the child's change is heard and by the
// startup sweep; and resuming a parent with the completions its child-resume rate held
// back (held_completions.cpp) once the rate allows. Owns the watcher of child changes
// and the delayed resumes; launches a parent's session through RunStarts.

#include "core/result.hpp"
#include "engine/forward.hpp"
#include "engine/parent_completion/child_resume_limits.hpp"
#include "engine/task_prompt.hpp"

#include <memory>
#include <string>
#include <vector>

namespace agentry::engine {

class Placement;

class DelayedCalls;
class RunChangeWatcher;

struct ParentCompletionSettings {
  std::string controller_id;  // the session a delivery opens is this process's
  const TaskPromptSettings* task_prompt = nullptr;
  ChildResumeLimits child_limits{};
  /// Whether this process may resume the parent, or leaves its start to a member that
  /// can (engine/placement/placement.hpp); outlives the service.
  const Placement* placement = nullptr;
};

class ParentCompletionService {
 public:
  ParentCompletionService(store::Store& db, events::EventBus& bus, core::ThreadPool& pool,
                          const BackendCatalog& backends, RunStarts& runs, ParentCompletionSettings settings);
  /// stop()
  ~ParentCompletionService();
  ParentCompletionService(const ParentCompletionService&) = delete;
  ParentCompletionService& operator=(const ParentCompletionService&) = delete;

  /// Startup, after queued messages were delivered: delivers the notifications of child
  /// sessions that ended while no daemon delivered them (one whose session is not
  /// confirmed ended stays pending, audited), and from now on each one as its child's
  /// session ends, on the pool. Off in embedded processes: the next serving daemon
  /// delivers. Returns how many it delivered.
  core::Result<int> start();
  /// No more deliveries or held resumes; sessions that end meanwhile are delivered by
  /// the next startup. Waits for one in progress. Idempotent.
  void stop();

 private:
  /// The watcher's evaluation: one read screens the batch for runs that owe a parent a
  /// notification or hold child completions, then deliver() and resume_held() look again,
  /// each at the few it found.
  void changed(const std::vector<std::string>& run_ids);
  /// Delivers, or skips with a reason, the pending notifications of `child_id` whose
  /// session has ended: one write, then the parent's session launches. `at_startup`
  /// audits those whose session has not ended. Returns how many it delivered.
  core::Result<int> deliver(const std::string& child_id, bool at_startup);
  /// Resumes `parent_id` once with every child completion held on its queue (past its
  /// child-resume rate), when it is idle and the rate allows; else arms a later look.
  void resume_held(const std::string& parent_id);

  store::Store& db_;
  events::EventBus& bus_;
  core::ThreadPool& pool_;
  const BackendCatalog& backends_;
  RunStarts& runs_;
  ParentCompletionSettings settings_;
  /// Parents whose held child completions wait for their resume rate to allow them.
  std::unique_ptr<DelayedCalls> held_resumes_;
  /// Hears of child runs' changes (last: stopped and destroyed first).
  std::unique_ptr<RunChangeWatcher> watcher_;
};

}  // namespace agentry::engine
