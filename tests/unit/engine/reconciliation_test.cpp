// Startup reconciliation: running runs whose controller is gone become `error`.
#include "engine/engine.hpp"

#include "core/clock.hpp"
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
    auto saved = db_->write<bool>([&](store::Connection& c) -> core::Result<bool> {
      return store::RunRepository::update(c, run);
    });
    EXPECT_TRUE(saved.ok());
    return run.id;
  }
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

}  // namespace
}  // namespace agentry::engine::testing
