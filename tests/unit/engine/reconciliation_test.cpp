// Reconciliation, at startup and by the daemon's sweep: running runs whose controller is
// gone become `error`; runs with a live controller, and this process's own, are left alone.
#include "engine/engine.hpp"

#include "core/clock.hpp"
#include "core/process_identity.hpp"
#include "engine/controllers.hpp"
#include "engine_fixture.hpp"
#include "store/run_repository.hpp"

#include <unistd.h>

namespace agentry::engine::testing {
namespace {

class ReconciliationTest : public EngineTest {
 protected:
  /// A run persisted as running under a non-passive backend, as a crashed daemon leaves it.
  std::string orphan(const std::string& controller_id) {
    core::Run run = init_run(feature_request());
    run.frozen.backend = "mock";
    run.status = core::RunStatus::running;
    run.controller_id = controller_id;
    run.session_count = 1;
    auto saved = db_->write<bool>([&](store::Transaction& c) -> core::Result<bool> {
      return c.runs().update(run);
    });
    EXPECT_TRUE(saved.ok());
    return run.id;
  }

  std::size_t audit_count(const std::string& id) { return engine_->audit(id, {})->size(); }

  /// A live process other than this one (the test runner's parent), as a controller id.
  static std::string live_controller(const std::string& kind, std::optional<std::uint64_t> start) {
    std::string id = kind + "-" + std::to_string(::getppid()) + "-alive0";
    if (start) id += "-" + std::to_string(*start);
    return id;
  }
};

// Holding the home's daemon lock for one test; the flag is process-wide.
struct AsTheDaemon {
  AsTheDaemon() { set_holds_daemon_lock(true); }
  ~AsTheDaemon() { set_holds_daemon_lock(false); }
};

TEST_F(ReconciliationTest, RunOfADeadControllerBecomesError) {
  // pid 0x3fffffff is above any real pid_max, so no process has it.
  auto id = orphan("daemon-1073741823-gone00");
  restart();
  auto finalized = engine_->reconcile_after_restart();
  ASSERT_TRUE(finalized.ok());
  EXPECT_EQ(*finalized, 1);
  auto view = engine_->view(id);
  EXPECT_EQ(view->run.status, core::RunStatus::error);
  EXPECT_NE(view->run.status_reason.find("daemon-1073741823-gone00"), std::string::npos);
  auto audit = engine_->audit(id, {});
  const auto& last = audit->back();
  EXPECT_EQ(last.type, "run.controller_reconciled");
  EXPECT_EQ(last.data.at("decision").as_string(), "finalized");
  EXPECT_EQ(last.data.at("reason").as_string(), "controller_gone");
}

TEST_F(ReconciliationTest, RunOfALiveOtherControllerIsLeftAlone) {
  auto id = orphan("daemon-" + std::to_string(::getppid()) + "-alive0");
  auto finalized = engine_->reconcile_after_restart();
  ASSERT_TRUE(finalized.ok());
  EXPECT_EQ(*finalized, 0);
  EXPECT_EQ(engine_->view(id)->run.status, core::RunStatus::running);
  EXPECT_EQ(engine_->audit(id, {})->back().data.at("decision").as_string(), "skipped_live_owner");
}

TEST_F(ReconciliationTest, PassiveRunsStayRunning) {
  auto run = start_run(feature_request());
  restart();
  ASSERT_EQ(*engine_->reconcile_after_restart(), 0);
  EXPECT_EQ(engine_->view(run.id)->run.status, core::RunStatus::running);
}

TEST_F(ReconciliationTest, TheDaemonFinalizesAnotherDaemonsRunWhateverItsPidSays) {
  // The pid is alive (a stranger now), but this process holds the lock: that daemon is gone.
  auto id = orphan(live_controller("daemon", core::process_start_time(::getppid())));
  AsTheDaemon daemon;
  ASSERT_EQ(*engine_->reconcile_after_restart(), 1);
  EXPECT_EQ(engine_->view(id)->run.status, core::RunStatus::error);
  EXPECT_EQ(engine_->audit(id, {})->back().data.at("reason").as_string(), "controller_gone");
}

TEST_F(ReconciliationTest, ACliControllerWhosePidWasReusedIsGone) {
  auto start = core::process_start_time(::getppid());
  if (!start) GTEST_SKIP() << "no /proc here";
  auto reused = orphan(live_controller("cli", *start + 1));
  auto alive = orphan(live_controller("cli", start));
  ASSERT_EQ(*engine_->reconcile_after_restart(), 1);
  EXPECT_EQ(engine_->view(reused)->run.status, core::RunStatus::error);
  EXPECT_EQ(engine_->view(alive)->run.status, core::RunStatus::running);
  EXPECT_EQ(engine_->audit(alive, {})->back().data.at("decision").as_string(), "skipped_live_owner");
}

TEST_F(ReconciliationTest, TheSweepLeavesLiveOwnersAndItsOwnRunsAloneAndSaysNothing) {
  auto alive = orphan(live_controller("cli", core::process_start_time(::getppid())));
  auto own = orphan(engine_->config().controller_id);
  const auto alive_audits = audit_count(alive), own_audits = audit_count(own);
  for (int sweep = 0; sweep < 3; ++sweep) ASSERT_EQ(*engine_->reconcile_stale_owners(), 0);
  EXPECT_EQ(engine_->view(alive)->run.status, core::RunStatus::running);
  EXPECT_EQ(engine_->view(own)->run.status, core::RunStatus::running);
  EXPECT_EQ(audit_count(alive), alive_audits) << "no skipped_live_owner record per sweep";
  EXPECT_EQ(audit_count(own), own_audits);
}

TEST_F(ReconciliationTest, TheSweepFinalizesARunWhoseControllerHasGone) {
  auto id = orphan("cli-1073741823-gone00-12345");
  ASSERT_EQ(*engine_->reconcile_stale_owners(), 1);
  auto view = engine_->view(id);
  EXPECT_EQ(view->run.status, core::RunStatus::error);
  EXPECT_NE(view->run.status_reason.find("cli-1073741823-gone00-12345"), std::string::npos);
  auto audit = engine_->audit(id, {});
  const auto& last = audit->back();
  EXPECT_EQ(last.type, "run.controller_reconciled");
  EXPECT_EQ(last.data.at("decision").as_string(), "finalized");
  EXPECT_EQ(last.data.at("reason").as_string(), "controller_gone");
  EXPECT_EQ(last.data.at("trigger").as_string(), "sweep");
  EXPECT_EQ(*engine_->reconcile_stale_owners(), 0) << "once is enough";
}

TEST_F(ReconciliationTest, AbortIsRefusedForALiveOwnerButNotForADaemonTheLockHolderKnowsIsGone) {
  auto id = orphan(live_controller("daemon", core::process_start_time(::getppid())));
  auto refused = engine_->abort(id, "", actor_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, core::ErrorCode::conflict);
  AsTheDaemon daemon;
  auto aborted = engine_->abort(id, "", actor_);
  ASSERT_TRUE(aborted.ok()) << aborted.error().message;
  EXPECT_EQ(aborted->status, core::RunStatus::aborted);
}

}  // namespace
}  // namespace agentry::engine::testing
