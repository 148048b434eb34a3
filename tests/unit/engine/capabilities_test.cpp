// The capabilities the engine reports must agree with what it then accepts: for runs
// in every reachable state, each capability is true exactly when the operation succeeds.
#include "core/lifecycle.hpp"

#include "engine_fixture.hpp"

namespace agentry::engine::testing {
namespace {

enum class Shape { initialized, ready, running, success, blocked, aborted, archived_initialized, archived_aborted };

const char* shape_name(Shape s) {
  switch (s) {
    case Shape::initialized: return "initialized";
    case Shape::ready: return "ready";
    case Shape::running: return "running";
    case Shape::success: return "success";
    case Shape::blocked: return "blocked";
    case Shape::aborted: return "aborted";
    case Shape::archived_initialized: return "archived initialized";
    case Shape::archived_aborted: return "archived aborted";
  }
  return "?";
}

class CapabilitiesTest : public EngineTest {
 protected:
  std::string make(Shape shape) {
    auto run = init_run(feature_request());
    const auto& id = run.id;
    auto set_all = [&](const char* status) {
      for (const char* task : {"plan", "build"}) {
        TaskPatch p;
        p.status = status;
        EXPECT_TRUE(engine_->tasks().update(id, task, p, actor_).ok());
      }
    };
    switch (shape) {
      case Shape::initialized: break;
      case Shape::ready: EXPECT_TRUE(engine_->ready(id, actor_).ok()); break;
      case Shape::running: EXPECT_TRUE(engine_->resume(id, {}, actor_).ok()); break;
      case Shape::success:
        EXPECT_TRUE(engine_->resume(id, {}, actor_).ok());
        set_all("completed");
        break;
      case Shape::blocked:
        EXPECT_TRUE(engine_->resume(id, {}, actor_).ok());
        set_all("blocked");
        break;
      case Shape::aborted:
        EXPECT_TRUE(engine_->resume(id, {}, actor_).ok());
        EXPECT_TRUE(engine_->abort(id, "", actor_).ok());
        break;
      case Shape::archived_initialized: EXPECT_TRUE(engine_->archive(id, actor_).ok()); break;
      case Shape::archived_aborted:
        EXPECT_TRUE(engine_->resume(id, {}, actor_).ok());
        EXPECT_TRUE(engine_->abort(id, "", actor_).ok());
        EXPECT_TRUE(engine_->archive(id, actor_).ok());
        break;
    }
    return id;
  }

  core::RunCapabilities caps(const std::string& id) {
    return core::capabilities(core::facts_of(engine_->view(id)->run));
  }
};

struct Probe {
  const char* name;
  bool core::RunCapabilities::*flag;
  std::function<bool(Engine&, const std::string&, const Actor&)> attempt;
};

TEST_F(CapabilitiesTest, EveryCapabilityMatchesTheEngine) {
  std::vector<Probe> probes = {
      {"ready", &core::RunCapabilities::can_ready, [](Engine& e, auto& id, auto& a) { return e.ready(id, a).ok(); }},
      {"resume", &core::RunCapabilities::can_resume,
       [](Engine& e, auto& id, auto& a) { return e.resume(id, {}, a).ok(); }},
      {"abort", &core::RunCapabilities::can_abort, [](Engine& e, auto& id, auto& a) { return e.abort(id, "", a).ok(); }},
      {"archive", &core::RunCapabilities::can_archive,
       [](Engine& e, auto& id, auto& a) { return e.archive(id, a).ok(); }},
      {"unarchive", &core::RunCapabilities::can_unarchive,
       [](Engine& e, auto& id, auto& a) { return e.unarchive(id, a).ok(); }},
      {"reset", &core::RunCapabilities::can_reset, [](Engine& e, auto& id, auto& a) { return e.reset(id, a).ok(); }},
      {"delete", &core::RunCapabilities::can_delete, [](Engine& e, auto& id, auto& a) { return e.remove(id, a).ok(); }},
      {"reconfigure", &core::RunCapabilities::can_reconfigure,
       [](Engine& e, auto& id, auto& a) {
         ReconfigureRequest r;
         r.message = "changed";
         return e.reconfigure(id, r, a).ok();
       }},
      {"set backend session", &core::RunCapabilities::can_set_backend_session,
       [](Engine& e, auto& id, auto& a) { return e.set_backend_session(id, "s-1", a).ok(); }},
      {"queue message", &core::RunCapabilities::can_queue_message,
       [](Engine& e, auto& id, auto& a) { return e.queue_message(id, "later", a).ok(); }},
      // There is no message to remove: allowed means "not found", refused means a conflict.
      {"remove queued message", &core::RunCapabilities::can_remove_queued_message,
       [](Engine& e, auto& id, auto& a) {
         auto removed = e.remove_queued_message(id, "qm_none", a);
         return removed.ok() || removed.error().code != core::ErrorCode::conflict;
       }},
      // Clearing no dependencies: allowed means an answer, refused a conflict.
      {"edit dependencies", &core::RunCapabilities::can_edit_dependencies,
       [](Engine& e, auto& id, auto& a) { return e.dependencies().clear(id, a).ok(); }},
  };
  for (auto shape : {Shape::initialized, Shape::ready, Shape::running, Shape::success, Shape::blocked, Shape::aborted,
                     Shape::archived_initialized, Shape::archived_aborted}) {
    for (const auto& probe : probes) {
      auto id = make(shape);
      bool advertised = caps(id).*probe.flag;
      bool accepted = probe.attempt(*engine_, id, actor_);
      EXPECT_EQ(advertised, accepted) << probe.name << " on a " << shape_name(shape) << " run";
    }
  }
}

TEST_F(CapabilitiesTest, TaskMutationCapabilitiesMatchTheEngine) {
  for (auto shape : {Shape::initialized, Shape::running, Shape::success, Shape::archived_aborted}) {
    auto id = make(shape);
    auto c = caps(id).task_mutation;
    TaskPatch notes;
    notes.notes = "n";
    EXPECT_EQ(c.can_set_notes, engine_->tasks().update(id, "plan", notes, actor_).ok()) << shape_name(shape);
    EXPECT_EQ(c.can_append_notes, engine_->tasks().append_notes(id, "plan", "more", actor_).ok()) << shape_name(shape);
    EXPECT_EQ(c.can_add, engine_->tasks().add(id, NewTask{"extra", "Extra", ""}, actor_).ok()) << shape_name(shape);
  }
}

TEST_F(CapabilitiesTest, LockedTasksRefuseAddAndDelete) {
  InitRequest r;
  r.agent = "worker";
  r.assignment = "locked";
  r.caller_cwd = work_dir_.string();
  auto run = init_run(r);
  auto c = caps(run.id).task_mutation;
  EXPECT_FALSE(c.can_add);
  EXPECT_FALSE(c.can_delete_pending);
  EXPECT_TRUE(c.can_set_status);
  auto added = engine_->tasks().add(run.id, NewTask{"x", "X", ""}, actor_);
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.error().code, core::ErrorCode::conflict);
  EXPECT_EQ(engine_->tasks().remove(run.id, "only", actor_).error().code, core::ErrorCode::conflict);
}

}  // namespace
}  // namespace agentry::engine::testing
