#include "live_run_fixture.hpp"

#include <fstream>
#include <thread>

namespace agentry::engine::testing {

void LiveRunTest::SetUp() {
  EngineTest::SetUp();
  plugins_.load(AGENTRY_MOCK_PLUGIN);
  ASSERT_TRUE(plugins_.has("mock")) << "the mock plugin did not load from " << AGENTRY_MOCK_PLUGIN;
  // The gate gives up after 30 s, so a test that never opens it leaves no process behind.
  write_config("agents/gated/agent.md", R"(---
schemaVersion: 1
backend: mock
backendConfig:
  mock: {"steps": [{"exec": ["sh", "-c", "i=0; while [ ! -f go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; rm -f go"]}]}
---
Gated agent.
)");
  write_config("agents/talker/agent.md", R"(---
schemaVersion: 1
backend: mock
backendConfig:
  mock: {"steps": [{"say": "working on it"}]}
---
Talking agent.
)");
  write_config("agents/failer/agent.md", R"(---
schemaVersion: 1
backend: mock
backendConfig:
  mock: {"steps": [{"fail": "tests are red"}]}
---
Failing agent.
)");
}

void LiveRunTest::open_gate() { std::ofstream(work_dir_ / "go") << "go"; }

bool LiveRunTest::eventually(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

core::Run LiveRunTest::start_feature(const std::string& agent) {
  auto request = feature_request();
  request.agent = agent;
  return start_run(request);
}

core::Run LiveRunTest::start_taskless(const std::string& agent, const std::string& message) {
  InitRequest r;
  r.agent = agent;
  r.caller_cwd = work_dir_.string();
  r.overrides.message = message;
  return start_run(r);
}

RunView LiveRunTest::view_of(const std::string& run_id) {
  auto v = engine_->view(run_id);
  EXPECT_TRUE(v.ok());
  return v.ok() ? *v : RunView{};
}

RunView LiveRunTest::settled(const std::string& run_id) {
  EXPECT_TRUE(eventually([&] { return view_of(run_id).run.status != core::RunStatus::running; }))
      << "run " << run_id << " is still running";
  return view_of(run_id);
}

void LiveRunTest::set_task(const std::string& run_id, const std::string& task_id, const std::string& status) {
  TaskPatch p;
  p.status = status;
  auto updated = engine_->tasks().update(run_id, task_id, p, Actor{"agent"});
  EXPECT_TRUE(updated.ok()) << (updated.ok() ? "" : updated.error().message);
}

std::vector<core::TimelineEvent> LiveRunTest::timeline_of(const std::string& run_id) {
  core::EventPageQuery q;
  q.limit = 5000;
  auto events = engine_->timeline(run_id, q);
  EXPECT_TRUE(events.ok());
  return events.ok() ? *events : std::vector<core::TimelineEvent>{};
}

std::vector<core::AuditEvent> LiveRunTest::audit_of(const std::string& run_id) {
  core::EventPageQuery q;
  q.limit = 5000;
  auto events = engine_->audit(run_id, q);
  EXPECT_TRUE(events.ok());
  return events.ok() ? *events : std::vector<core::AuditEvent>{};
}

}  // namespace agentry::engine::testing
