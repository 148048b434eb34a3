// Hooks written as JavaScript modules (agent-runner's `name:` / `path:` entries) over the
// real daemon, run by the real node: `.mjs` files written by the test into the config
// dir. A beforeAttempt module that blocks, one that rewrites the prompt and keeps state
// an afterAttempt module reads back (RunDetail.hookData), a taskTransition module that
// rejects a change unless the notes say so, one that patches another task, and the
// failures: a module that throws, one that never answers (the timeout setting), and a
// node that is not there.
#include "module_hook_fixture.hpp"

#include <cstdlib>
#include <map>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;

class ModuleHooksTest : public ModuleHookTest {
 protected:
  std::string start(const std::string& agent, const std::string& assignment, const std::string& message) {
    return start_assignment_run(agent, assignment, message);
  }
  /// The run's hook audits of `phase`, once there are at least `n`.
  json::array wait_for_audits(const std::string& run, const std::string& phase, std::size_t n = 1) {
    return wait_for_hook_audits(run, phase, n);
  }
  bool timeline_mentions(const std::string& run, const std::string& text) {
    for (const auto& e : timeline(run))
      if (json::serialize(e).find(text) != std::string::npos) return true;
    return false;
  }
  json::object task(const std::string& run, const std::string& id) {
    return client().get("/api/runs/" + run + "/tasks/" + id).json().at("task").as_object();
  }
  std::map<std::string, json::object> audits_by_hook(const std::string& run) {
    std::map<std::string, json::object> by_hook;
    const auto detail = get_run(run);
    for (const auto& a : detail.at("hookAudits").as_array())
      by_hook[std::string(a.at("hookId").as_string())] = a.as_object();
    return by_hook;
  }
};

TEST_F(ModuleHooksTest, ABeforeAttemptModuleBlocksTheRunWithItsReason) {
  write_module("gate", R"JS(
export default {
  name: "gate",
  beforeAttempt(ctx) {
    if (ctx.attemptPrompt.includes("forbidden")) return { action: "block", reason: "no forbidden work" };
    return { action: "continue" };
  },
};
)JS");
  write_assignment("gated", "hooks:\n  beforeAttempt:\n    - name: gate\n");

  auto blocked = start("scripted", "gated", "forbidden @mock {\"say\": \"should not run\"}");
  EXPECT_EQ(wait_until_settled(blocked), "error");
  auto detail = get_run(blocked);
  EXPECT_NE(std::string(detail.at("statusReason").as_string()).find("hook 'beforeAttempt-0' blocked: no forbidden work"),
            std::string::npos)
      << json::serialize(detail);
  ASSERT_EQ(detail.at("resolvedHooks").as_array().size(), 1u);
  const auto& resolved = detail.at("resolvedHooks").at(0).as_object();
  EXPECT_EQ(resolved.at("moduleSource").as_string(), "name:gate");
  EXPECT_EQ(resolved.at("module").as_string(), (config_ / "hooks/gate/hook.mjs").string());
  auto audits = detail.at("hookAudits").as_array();
  ASSERT_EQ(audits.size(), 1u);
  EXPECT_EQ(audits.at(0).at("outcome").as_string(), "blocked");
  EXPECT_EQ(audits.at(0).at("message").as_string(), "no forbidden work");
  EXPECT_FALSE(timeline_mentions(blocked, "should not run"));

  auto passed = start("scripted", "gated", "fine @mock {\"say\": \"let through\"}");
  EXPECT_EQ(wait_until_settled(passed), "success");
  EXPECT_TRUE(timeline_mentions(passed, "let through"));
}

TEST_F(ModuleHooksTest, StateAModuleKeepsReachesTheNextPhaseAndRunDetail) {
  // One module for both phases, named by path relative to the assignment file.
  dir_.write_file("config/assignments/stateful/hooks/counter.mjs", R"JS(
export default {
  name: "counter",
  beforeAttempt(ctx) {
    return {
      action: "reinvoke",
      followUpPrompt: '@mock {"say": "rewritten by a module"}',
      mutate: { state: { before: ctx.attemptIndexInSession + 1, runId: ctx.run.runId, mode: ctx.config.mode } },
    };
  },
  afterAttempt(ctx) {
    return {
      action: "continue",
      mutate: { state: { after: ctx.state.before + 10 }, note: "tasks " + ctx.tasks.total, pinned: true },
    };
  },
};
)JS");
  write_assignment("stateful",
                   "hooks:\n"
                   "  beforeAttempt:\n    - {path: ./hooks/counter.mjs, with: {mode: strict}}\n"
                   "  afterAttempt:\n    - {path: ./hooks/counter.mjs}\n");
  auto run = start("scripted", "stateful", "the original @mock {\"say\": \"the original\"}");
  EXPECT_EQ(wait_until_settled(run), "success");
  wait_for_audits(run, "afterAttempt");
  auto detail = get_run(run);
  EXPECT_TRUE(timeline_mentions(run, "rewritten by a module"));
  EXPECT_FALSE(timeline_mentions(run, "\"the original\""));
  EXPECT_EQ(detail.at("hookData"), (json::value{{"before", 1}, {"runId", run}, {"mode", "strict"}, {"after", 11}}))
      << json::serialize(detail.at("hookData"));
  EXPECT_EQ(detail.at("note"), json::value("tasks 0"));
  EXPECT_TRUE(detail.at("pinned").as_bool());
}

TEST_F(ModuleHooksTest, ReinvokeAtAfterAttemptAsksForAnotherAttemptWithinTheBudget) {
  // Once: the run (no tasks) would have ended after its first attempt.
  write_module("once-more", R"JS(
export default {
  name: "once-more",
  afterAttempt(ctx) {
    if (ctx.attemptIndexInSession > 0) return { action: "continue" };
    return { action: "reinvoke", followUpPrompt: '@mock {"say": "second pass after ' + ctx.attemptResult.outcome + '"}' };
  },
};
)JS");
  write_assignment("twice", "hooks:\n  afterAttempt: [{name: once-more}]\n");
  auto run = start("scripted", "twice", "@mock {\"say\": \"first pass\"}");
  EXPECT_EQ(wait_until_settled(run), "success");
  auto detail = get_run(run);
  EXPECT_EQ(detail.at("totalAttemptCount").as_int64(), 2) << json::serialize(detail);
  EXPECT_TRUE(timeline_mentions(run, "first pass"));
  EXPECT_TRUE(timeline_mentions(run, "second pass after success"));
  EXPECT_EQ(wait_for_audits(run, "afterAttempt", 2).size(), 2u);

  // Always: the session's attempts (maxRetries 1: two) run out, and it ends exhausted.
  write_module("forever", R"JS(
export default {
  name: "forever",
  afterAttempt(ctx) { return { action: "reinvoke", followUpPrompt: '@mock {"say": "pass ' + (ctx.attemptIndexInSession + 2) + '"}' }; },
};
)JS");
  write_assignment("endless", "maxRetries: 1\nhooks:\n  afterAttempt: [{name: forever}]\n");
  auto endless = start("scripted", "endless", "@mock {\"say\": \"pass 1\"}");
  EXPECT_EQ(wait_until_settled(endless), "exhausted");
  auto ended = get_run(endless);
  EXPECT_EQ(ended.at("totalAttemptCount").as_int64(), 2);
  EXPECT_TRUE(timeline_mentions(endless, "pass 2"));
  EXPECT_FALSE(timeline_mentions(endless, "pass 3"));
  EXPECT_NE(std::string(ended.at("statusReason").as_string()).find("reinvoke"), std::string::npos)
      << json::serialize(ended);
}

TEST_F(ModuleHooksTest, ATaskTransitionModuleRejectsUnlessTheNotesSaySoAndPatchesOtherTasks) {
  write_module("needs-tests", R"JS(
export default {
  name: "needs-tests",
  taskTransition(ctx) {
    const t = ctx.transition;
    if (t.to.status === "completed" && !t.to.notes.includes("tested"))
      return { accept: false, reason: `task ${t.taskId} needs the word tested in its notes`, mutate: { state: { rejected: t.taskId } } };
    return { accept: true };
  },
};
)JS");
  write_module("kick-off", R"JS(
export default {
  name: "kick-off",
  taskTransition(ctx) {
    return { accept: true, mutate: { patchTasks: [{ taskId: "build", status: "in_progress", notesAppend: "started when " + ctx.transition.taskId + " began" }] } };
  },
};
)JS");
  write_assignment("reviewed",
                   "tasks:\n  - {id: plan, title: Plan}\n  - {id: build, title: Build}\n"
                   "hooks:\n"
                   "  taskTransition:\n"
                   "    - {name: needs-tests, when: {taskId: plan}}\n"
                   "    - {name: kick-off, when: {taskId: plan, toStatus: in_progress}}\n");
  auto run = start("worker", "reviewed", "go");
  ASSERT_FALSE(run.empty());
  const std::string plan = "/api/runs/" + run + "/tasks/plan";

  auto refused = client().patch_json(plan, json::object{{"status", "completed"}, {"notes", "done"}});
  EXPECT_EQ(error_code_of(refused), "CONFLICT") << refused.body;
  EXPECT_EQ(refused.json().at("error").at("details").at("reason").as_string(), "hook_refused");
  EXPECT_NE(refused.body.find("task plan needs the word tested in its notes"), std::string::npos) << refused.body;
  EXPECT_EQ(task(run, "plan").at("status").as_string(), "pending");
  // The rejection rolls the change back but keeps what the hook did.
  EXPECT_EQ(get_run(run).at("hookData"), (json::value{{"rejected", "plan"}}));

  // The second hook patches another task when plan starts.
  EXPECT_EQ(client().patch_json(plan, json::object{{"status", "in_progress"}}).status, 200);
  auto build = task(run, "build");
  EXPECT_EQ(build.at("status").as_string(), "in_progress");
  EXPECT_EQ(build.at("notes").as_string(), "started when plan began");

  auto accepted = client().patch_json(plan, json::object{{"status", "completed"}, {"notes", "tested on CI"}});
  EXPECT_EQ(accepted.status, 200) << accepted.body;
  EXPECT_EQ(task(run, "plan").at("status").as_string(), "completed");

  auto by_hook = audits_by_hook(run);
  EXPECT_EQ(by_hook["taskTransition-0"].at("outcome").as_string(), "ok");  // its last run accepted
  EXPECT_EQ(by_hook["taskTransition-1"].at("outcome").as_string(), "ok");
  bool patched_by_hook = false;
  const auto trail = client().get("/api/runs/" + run + "/audit").json();
  for (const auto& e : trail.at("events").as_array())
    if (e.at("type") == "task.updated" && e.at("actor") == "hook") patched_by_hook = true;
  EXPECT_TRUE(patched_by_hook);
}

TEST_F(ModuleHooksTest, AnInlineTasksOwnHooksRunBeforeTheAssignmentsAndSeeOnlyItsTask) {
  write_module("mark", R"JS(
export default {
  name: "mark",
  taskTransition(ctx) {
    const order = (ctx.state.order ?? "") + ctx.config.who + ":" + ctx.transition.taskId + " ";
    return { accept: true, mutate: { state: { order } } };
  },
};
)JS");
  write_assignment("scoped",
                   "tasks:\n"
                   "  - {id: plan, title: Plan, hooks: [{name: mark, with: {who: task}}]}\n"
                   "  - {id: build, title: Build}\n"
                   "hooks:\n  taskTransition: [{name: mark, with: {who: root}}]\n");
  auto run = start("worker", "scoped", "go");
  ASSERT_FALSE(run.empty());
  auto detail = get_run(run);
  ASSERT_EQ(detail.at("hookCount").as_int64(), 2);
  EXPECT_EQ(detail.at("resolvedHooks").at(1).at("id").as_string(), "plan/taskTransition-0");
  EXPECT_EQ(client().patch_json("/api/runs/" + run + "/tasks/plan", json::object{{"status", "in_progress"}}).status, 200);
  EXPECT_EQ(client().patch_json("/api/runs/" + run + "/tasks/build", json::object{{"status", "in_progress"}}).status, 200);
  EXPECT_EQ(get_run(run).at("hookData"), (json::value{{"order", "task:plan root:plan root:build "}}));
}

TEST_F(ModuleHooksTest, AModuleThatThrowsOrPrintsBlocksWithTheErrorInTheAudit) {
  write_module("thrower", R"JS(
console.log("noise on stdout does not break the answer");
export default {
  name: "thrower",
  beforeAttempt() { throw new Error("the module broke"); },
  taskTransition() { return "not an object"; },
};
)JS");
  write_assignment("broken", "tasks:\n  - {id: plan, title: Plan}\nhooks:\n  beforeAttempt: [{name: thrower}]\n"
                             "  taskTransition: [{name: thrower}]\n");
  auto run = start("scripted", "broken", "@mock {\"say\": \"never\"}");
  EXPECT_EQ(wait_until_settled(run), "error");
  auto audit = wait_for_audits(run, "beforeAttempt").at(0).as_object();
  EXPECT_EQ(audit.at("outcome").as_string(), "failed");
  EXPECT_NE(std::string(audit.at("message").as_string()).find("the module broke"), std::string::npos)
      << json::serialize(audit);
  EXPECT_NE(std::string(audit.at("stderr").as_string()).find("noise on stdout"), std::string::npos);
  EXPECT_NE(std::string(get_run(run).at("statusReason").as_string()).find("the module broke"), std::string::npos);

  auto passive = start("worker", "broken", "go");
  auto refused = client().patch_json("/api/runs/" + passive + "/tasks/plan", json::object{{"status", "completed"}});
  EXPECT_EQ(error_code_of(refused), "CONFLICT") << refused.body;
  EXPECT_NE(refused.body.find("must be an object"), std::string::npos) << refused.body;
}

TEST_F(ModuleHooksTest, AModuleThatNeverAnswersIsKilledAtTheTimeoutSetting) {
  start_daemon({{"AGENTRY_MODULE_HOOK_TIMEOUT_SEC", "1"}});
  write_module("stuck", R"JS(
export default {
  name: "stuck",
  taskTransition() { return new Promise((resolve) => setTimeout(() => resolve({ accept: true }), 60000)); },
};
)JS");
  write_assignment("stuck", "tasks:\n  - {id: plan, title: Plan}\nhooks:\n  taskTransition: [{name: stuck}]\n");
  auto run = start("worker", "stuck", "go");
  const auto began = std::chrono::steady_clock::now();
  auto refused = client().patch_json("/api/runs/" + run + "/tasks/plan", json::object{{"status", "completed"}});
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(10));
  EXPECT_EQ(error_code_of(refused), "CONFLICT") << refused.body;
  auto audit = audits_by_hook(run)["taskTransition-0"];
  EXPECT_EQ(audit.at("outcome").as_string(), "timedOut");
  EXPECT_NE(std::string(audit.at("message").as_string()).find("within 1 s"), std::string::npos);
  EXPECT_EQ(task(run, "plan").at("status").as_string(), "pending");
}

TEST_F(ModuleHooksTest, AMissingNodeIsAClearFailure) {
  start_daemon({{"AGENTRY_NODE", "/nonexistent/node"}});
  write_module("any", "export default { name: \"any\", taskTransition() { return { accept: true }; } };\n");
  write_assignment("nonode", "tasks:\n  - {id: plan, title: Plan}\nhooks:\n  taskTransition: [{name: any}]\n");
  auto run = start("worker", "nonode", "go");
  auto refused = client().patch_json("/api/runs/" + run + "/tasks/plan", json::object{{"status", "completed"}});
  EXPECT_EQ(error_code_of(refused), "CONFLICT") << refused.body;
  EXPECT_NE(refused.body.find("cannot start node '/nonexistent/node' (AGENTRY_NODE)"), std::string::npos)
      << refused.body;
}

TEST_F(ModuleHooksTest, WhatAgentryCannotDoIsRefusedNamingIt) {
  write_module("mover", R"JS(
export default {
  name: "mover",
  taskTransition() { return { accept: true, mutate: { run: { cwd: "/tmp" } } }; },
};
)JS");
  write_assignment("mover", "tasks:\n  - {id: plan, title: Plan}\nhooks:\n  taskTransition: [{name: mover}]\n");
  auto run = start("worker", "mover", "go");
  auto refused = client().patch_json("/api/runs/" + run + "/tasks/plan", json::object{{"status", "completed"}});
  EXPECT_EQ(error_code_of(refused), "CONFLICT") << refused.body;
  EXPECT_NE(refused.body.find("mutate.run.cwd cannot be changed at taskTransition"), std::string::npos) << refused.body;
}

TEST_F(ModuleHooksTest, ATypeScriptModuleRunsWhereNodeCanLoadIt) {
  // Node strips types itself from 22.18 / 23.6; before that the host needs jiti.
  const bool loader = std::system("node -e \"import('jiti').then(() => process.exit(0), () => process.exit(1))\" "
                                  "> /dev/null 2>&1") == 0 ||
                      std::system("node -e \"const [a, b] = process.versions.node.split('.').map(Number); "
                                  "process.exit(a > 23 || (a === 23 && b >= 6) || (a === 22 && b >= 18) ? 0 : 1)\" "
                                  "> /dev/null 2>&1") == 0;
  dir_.write_file("config/hooks/typed/hook.ts", R"TS(
interface Transition { to: { status: string } }
export default {
  name: "typed",
  taskTransition(ctx: { transition: Transition }) {
    const status: string = ctx.transition.to.status;
    return status === "blocked" ? { accept: false, reason: "typed says no" } : { accept: true };
  },
};
)TS");
  write_assignment("typed", "tasks:\n  - {id: plan, title: Plan}\nhooks:\n  taskTransition: [{name: typed}]\n");
  auto run = start("worker", "typed", "go");
  auto answer = client().patch_json("/api/runs/" + run + "/tasks/plan", json::object{{"status", "blocked"}});
  EXPECT_EQ(error_code_of(answer), "CONFLICT") << answer.body;
  if (!loader) {
    // Without a loader the hook fails, naming both ways to fix it.
    EXPECT_NE(answer.body.find("jiti"), std::string::npos) << answer.body;
    GTEST_SKIP() << "no TypeScript loader for node here (node < 22.18 and no jiti on NODE_PATH): checked only the "
                    "failure that says so";
  }
  EXPECT_NE(answer.body.find("typed says no"), std::string::npos) << answer.body;
}

}  // namespace
}  // namespace agentry::integration
