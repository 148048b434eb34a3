#pragma once
// An engine with the mock backend loaded, and agents whose attempts wait at a gate
// file in the run's working directory, so a test decides when each attempt ends.

#include "core/lifecycle.hpp"
#include "engine_fixture.hpp"

#include <chrono>
#include <functional>
#include <string>

namespace agentry::engine::testing {

class LiveRunTest : public EngineTest {
 protected:
  void SetUp() override;

  /// Each attempt of a run of agent "gated" waits until the file `go` exists in the
  /// run's cwd, deletes it, and finishes with success.
  void open_gate();
  /// Polls `done` every 10 ms for up to 20 s; false on timeout.
  static bool eventually(const std::function<bool()>& done);
  /// A run of `agent` on the "feature" assignment (tasks plan and build, maxRetries 2).
  core::Run start_feature(const std::string& agent);
  /// A run of `agent` with a message and no tasks.
  core::Run start_taskless(const std::string& agent, const std::string& message = "go");
  /// The run as the engine sees it now.
  RunView view_of(const std::string& run_id);
  /// Waits until the run is no longer running and returns its view.
  RunView settled(const std::string& run_id);
  void set_task(const std::string& run_id, const std::string& task_id, const std::string& status);
  std::vector<core::TimelineEvent> timeline_of(const std::string& run_id);
  std::vector<core::AuditEvent> audit_of(const std::string& run_id);
};

}  // namespace agentry::engine::testing
