// A live run's hooks are blocking steps of its strand (engine/live/live_run.hpp): they run on
// the blocking pool, so more waiting hooks than the engine's pool has threads (2 here)
// leave other runs going; and each gated run still waits for its hook, in order: its
// agent hears of the attempt only once the hook let it through.
#include "live_run_fixture.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace agentry::engine::testing {
namespace {
namespace fs = std::filesystem;

using BlockingStepsTest = LiveRunTest;

bool said(const std::vector<core::TimelineEvent>& events, const std::string& text) {
  return std::any_of(events.begin(), events.end(), [&](const core::TimelineEvent& e) {
    const auto* spoken = e.payload.if_contains("text");
    return e.kind == "message.completed" && spoken && spoken->is_string() && spoken->as_string() == text;
  });
}

TEST_F(BlockingStepsTest, HooksWaitingOffTheStrandHoldTheirRunButNoOther) {
  // The hook says it started, then waits (at most 30 s) for the gate file.
  const fs::path gate = work_dir_ / "hook-gate";
  const fs::path started = work_dir_ / "started";
  fs::create_directories(started);
  write_config("assignments/held/wait.sh",
               "#!/bin/sh\ncat > /dev/null\ntouch '" + (started / "").string() + "'\"$AGENTRY_RUN_ID\"\n"
               "i=0; while [ ! -f '" + gate.string() + "' ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done\n");
  ::chmod((config_dir_ / "assignments/held/wait.sh").c_str(), 0755);
  write_config("assignments/held/assignment.md",
               "---\nschemaVersion: 1\nhooks:\n  - {id: wait, phase: beforeAttempt, run: [./wait.sh], timeoutSec: 60}\n"
               "---\nWait.\n");

  std::vector<std::string> held;
  for (int i = 0; i < 3; ++i) {
    InitRequest r;
    r.agent = "talker";
    r.assignment = "held";
    r.caller_cwd = work_dir_.string();
    r.overrides.message = "go";
    held.push_back(start_run(r).id);
  }
  ASSERT_TRUE(eventually([&] {
    return std::all_of(held.begin(), held.end(), [&](const std::string& id) { return fs::exists(started / id); });
  })) << "three hooks never ran at once: a waiting hook still holds a thread the others need";

  // With all three waiting, another run goes from start to end.
  auto other = start_taskless("talker");
  EXPECT_EQ(settled(other.id).run.status, core::RunStatus::success);
  EXPECT_TRUE(said(timeline_of(other.id), "working on it"));
  for (const auto& id : held) {
    EXPECT_EQ(view_of(id).run.status, core::RunStatus::running);
    EXPECT_FALSE(said(timeline_of(id), "working on it")) << "run " << id << " started its agent before its hook ended";
  }

  std::ofstream(gate) << "go";
  for (const auto& id : held) {
    EXPECT_EQ(settled(id).run.status, core::RunStatus::success);
    EXPECT_TRUE(said(timeline_of(id), "working on it"));
  }
}

}  // namespace
}  // namespace agentry::engine::testing
