// agent-runner's prepare at init: a run's module prepare hooks (`name:` / `path:`) run
// while it is initialized, before it is first written, over the real daemon and the
// real node. A hook deriving vars the message and tasks use (agent-runner's
// derive-worktree-vars: repo_root and worktree_path from the cwd and a slug var) and
// moving the run's cwd and model; `requiredAt: prepare` vars set by a hook or left
// missing; a hook that blocks, one that throws and one whose change cannot be applied
// (each a 422 with nothing written); reinvoke choosing the first prompt; re-initializing,
// which prepares afresh; init and start over the WebSocket; and a slow hook that does
// not hold the request workers.
#include "module_hook_fixture.hpp"

#include "support/ws_client.hpp"

#include <cstdlib>
#include <future>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
using std::chrono::steady_clock;

/// agent-runner's derive-worktree-vars, as a module: the repository and the worktree
/// path from the run's cwd and the worktree_slug var; the run moves into `sub`.
constexpr const char* derive_vars = R"JS(
import path from "node:path";
export default {
  name: "derive-worktree-vars",
  prepare(ctx) {
    const repo_root = ctx.run.cwd;
    const worktree_path = path.join(repo_root, ".worktrees", ctx.vars.worktree_slug);
    return {
      action: "continue",
      mutate: {
        vars: { repo_root, worktree_path },
        run: { cwd: path.join(ctx.run.cwd, "sub"), model: "model-from-" + ctx.config.flavour, timeoutSec: 600 },
        state: { derivedFrom: ctx.run.cwd, sawPrompt: ctx.defaultInitialPrompt.length > 0 },
        note: "prepared " + ctx.vars.worktree_slug,
      },
    };
  },
};
)JS";

class PrepareHooksTest : public ModuleHookTest {
 protected:
  /// POST /api/runs/init for `agent` on `assignment` with `vars`, in work_.
  test::HttpResponse init(const std::string& agent, const std::string& assignment, json::object vars = {}) {
    return client().post_json("/api/runs/init", json::object{{"agent", agent},
                                                             {"assignment", assignment},
                                                             {"callerCwd", work_.string()},
                                                             {"webVars", std::move(vars)}});
  }
  std::size_t run_count() { return client().get("/api/runs").json().at("runs").as_array().size(); }
  std::size_t prepare_audits(const std::string& run) {
    std::size_t n = 0;
    const auto detail = get_run(run);  // kept: the loop reads inside it
    for (const auto& a : detail.at("hookAudits").as_array())
      if (a.at("phase") == "prepare") ++n;
    return n;
  }
  bool timeline_mentions(const std::string& run, const std::string& text) {
    for (const auto& e : timeline(run))
      if (json::serialize(e).find(text) != std::string::npos) return true;
    return false;
  }
  /// The 422 a prepare hook's failure answers, with nothing written.
  json::object expect_refused_init(const test::HttpResponse& response) {
    EXPECT_EQ(response.status, 422) << response.body;
    EXPECT_EQ(error_code_of(response), "VALIDATION_FAILED");
    EXPECT_EQ(run_count(), 0u) << "a refused init wrote a run";
    return response.json().at("error").as_object();
  }
};

TEST_F(PrepareHooksTest, APrepareModuleDerivesVarsTheTemplatesUseAndMovesTheRun) {
  write_module("derive-worktree-vars", derive_vars);
  std::filesystem::create_directories(work_ / "sub");
  write_assignment("worktree",
                   "vars:\n"
                   "  worktree_slug: {type: string, required: true}\n"
                   "  worktree_path: {type: string, required: true, requiredAt: prepare}\n"
                   "message: '@mock {\"say\": \"working in {{worktree_path}}\"}'\n"
                   "tasks:\n  - {id: edit, title: 'Edit {{worktree_path}}', body: 'repo {{repo_root}}, cwd {{cwd}}'}\n"
                   "hooks:\n  prepare:\n    - {name: derive-worktree-vars, with: {flavour: small}}\n");
  auto created = init("scripted", "worktree", {{"worktree_slug", "feature-x"}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string run(created.json().at("run").at("runId").as_string());
  const std::string root = std::filesystem::canonical(work_).string();
  const std::string worktree = root + "/.worktrees/feature-x";

  auto detail = get_run(run);
  EXPECT_EQ(detail.at("cwd").as_string(), root + "/sub");
  EXPECT_EQ(detail.at("model").as_string(), "model-from-small");
  EXPECT_EQ(detail.at("frozen").at("timeoutSec").as_int64(), 600);
  EXPECT_EQ(detail.at("vars").at("worktree_path").as_string(), worktree);
  EXPECT_EQ(detail.at("vars").at("repo_root").as_string(), root);
  EXPECT_EQ(detail.at("message").as_string(), "@mock {\"say\": \"working in " + worktree + "\"}");
  const auto& task = detail.at("tasks").at(0);
  EXPECT_EQ(task.at("title").as_string(), "Edit " + worktree);
  // Rendered after the hook: {{cwd}} is where it moved the run.
  EXPECT_EQ(task.at("body").as_string(), "repo " + root + ", cwd " + root + "/sub");
  EXPECT_EQ(detail.at("hookData"), (json::value{{"derivedFrom", root}, {"sawPrompt", true}}));
  EXPECT_EQ(detail.at("note"), json::value("prepared feature-x"));
  auto audits = detail.at("hookAudits").as_array();
  ASSERT_EQ(audits.size(), 1u);
  EXPECT_EQ(audits.at(0).at("hookId").as_string(), "prepare-0");
  EXPECT_EQ(audits.at(0).at("outcome").as_string(), "ok");
  // The answer to init was the run as written: no later write added the hook's work.
  EXPECT_EQ(created.json().at("run").at("revision"), detail.at("revision"));

  // Started, it runs in the prepared cwd; the hook does not run a second time.
  ASSERT_EQ(client().post_json("/api/runs/" + run + "/resume", json::object{}).status, 200);
  wait_until_settled(run);
  EXPECT_TRUE(timeline_mentions(run, "working in " + worktree));
  EXPECT_EQ(prepare_audits(run), 1u);
}

TEST_F(PrepareHooksTest, APrepareRequiredVarTheHookLeavesMissingIsRefusedNamingIt) {
  write_module("nothing", "export default { name: \"nothing\", prepare() { return { action: \"continue\" }; } };\n");
  write_assignment("needs-path",
                   "vars:\n  worktree_path: {type: string, required: true, requiredAt: prepare}\n"
                   "message: 'in {{worktree_path}}'\n"
                   "hooks:\n  prepare: [{name: nothing}]\n");
  auto refused = expect_refused_init(init("scripted", "needs-path"));
  EXPECT_EQ(refused.at("details").at("field"), "vars.worktree_path");
  EXPECT_NE(std::string(refused.at("message").as_string()).find("requiredAt: prepare"), std::string::npos);

  // Given by the request, it needs no hook.
  EXPECT_EQ(init("scripted", "needs-path", {{"worktree_path", "/given"}}).status, 201);
}

TEST_F(PrepareHooksTest, ABlockingOrThrowingHookFailsTheInitAndWritesNothing) {
  write_module("gate", R"JS(
export default { name: "gate", prepare(ctx) { return { action: "block", reason: "not on " + ctx.assignment.name }; } };
)JS");
  write_module("thrower", R"JS(
export default { name: "thrower", prepare() { throw new Error("prepare broke"); } };
)JS");
  write_module("bad-timeout", R"JS(
export default { name: "bad-timeout", prepare() { return { action: "continue", mutate: { run: { timeoutSec: -5 } } }; } };
)JS");
  write_assignment("blocked", "message: go\nhooks:\n  prepare: [{name: gate}]\n");
  write_assignment("thrown", "message: go\nhooks:\n  prepare: [{name: thrower}]\n");
  write_assignment("bad", "message: go\nhooks:\n  prepare: [{name: bad-timeout}]\n");

  auto blocked = expect_refused_init(init("scripted", "blocked"));
  EXPECT_EQ(blocked.at("details").at("hookId"), "prepare-0");
  EXPECT_EQ(blocked.at("details").at("source"), "name:gate");
  EXPECT_EQ(blocked.at("details").at("reason"), "not on blocked");
  EXPECT_NE(std::string(blocked.at("message").as_string()).find("prepare hook 'prepare-0' (name:gate) blocked"),
            std::string::npos);

  auto thrown = expect_refused_init(init("scripted", "thrown"));
  EXPECT_EQ(thrown.at("details").at("outcome"), "failed");
  EXPECT_NE(std::string(thrown.at("details").at("reason").as_string()).find("prepare broke"), std::string::npos);

  auto bad = expect_refused_init(init("scripted", "bad"));
  EXPECT_EQ(bad.at("details").at("field"), "mutate.run.timeoutSec");

  // runs.start is refused the same way, before any session.
  auto started = client().post_json("/api/runs", json::object{{"agent", "scripted"}, {"assignment", "blocked"},
                                                              {"callerCwd", work_.string()}});
  expect_refused_init(started);
}

TEST_F(PrepareHooksTest, ReinvokeAtPrepareChoosesTheFirstPrompt) {
  write_module("opener", R"JS(
export default {
  name: "opener",
  prepare(ctx) {
    return { action: "reinvoke", followUpPrompt: '@mock {"say": "opened by prepare"}\n' + ctx.currentInitialPrompt.length };
  },
};
)JS");
  write_assignment("opened", "message: '@mock {\"say\": \"the default prompt\"}'\nhooks:\n  prepare: [{name: opener}]\n");
  auto run = start_assignment_run("scripted", "opened", "@mock {\"say\": \"the default prompt\"}");
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(wait_until_settled(run), "success");
  EXPECT_NE(std::string(get_run(run).at("brief").as_string()).find("opened by prepare"), std::string::npos);
  EXPECT_TRUE(timeline_mentions(run, "opened by prepare"));
  EXPECT_FALSE(timeline_mentions(run, "\"the default prompt\""));
  EXPECT_EQ(prepare_audits(run), 1u);
}

TEST_F(PrepareHooksTest, ReinitializingPreparesTheRunAfresh) {
  write_module("counter", R"JS(
export default {
  name: "counter",
  prepare(ctx) {
    return { action: "continue", mutate: { vars: { stamp: ctx.vars.slug + "-" + ctx.state.n }, state: { n: 1, slug: ctx.vars.slug } } };
  },
};
)JS");
  write_assignment("stamped", "vars:\n  slug: {type: string}\nmessage: 'stamp {{stamp}}'\nhooks:\n  prepare: [{name: counter}]\n");
  auto created = init("scripted", "stamped", {{"slug", "a"}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string run(created.json().at("run").at("runId").as_string());
  EXPECT_EQ(get_run(run).at("message").as_string(), "stamp a-undefined");

  auto again = client().post_json("/api/runs/init", json::object{{"runId", run}, {"webVars", {{"slug", "b"}}}});
  ASSERT_EQ(again.status, 200) << again.body;
  auto detail = get_run(run);
  // Prepared afresh, as agent-runner does: the hook saw no state of the first init.
  EXPECT_EQ(detail.at("message").as_string(), "stamp b-undefined");
  EXPECT_EQ(detail.at("hookData"), (json::value{{"n", 1}, {"slug", "b"}}));
  EXPECT_EQ(prepare_audits(run), 2u);

  // A reconfigure (no hook runs) keeps the var the hook set, unless it sets it itself.
  auto reconfigured = client().post_json("/api/runs/" + run + "/reconfigure", json::object{{"vars", {{"slug", "c"}}}});
  ASSERT_EQ(reconfigured.status, 200) << reconfigured.body;
  EXPECT_EQ(get_run(run).at("message").as_string(), "stamp b-undefined");
  EXPECT_EQ(prepare_audits(run), 2u);
}

TEST_F(PrepareHooksTest, OverTheWebSocketInitAndStartRunThePrepareHooksToo) {
  write_module("stamp", R"JS(
export default {
  name: "stamp",
  prepare(ctx) {
    if (ctx.vars.topic === "no") return { action: "block", reason: "not that topic" };
    return { action: "continue", mutate: { vars: { title: "About " + ctx.vars.topic }, pinned: true } };
  },
};
)JS");
  write_assignment("stamped", "vars:\n  topic: {type: string}\nmessage: '{{title}}'\nhooks:\n  prepare: [{name: stamp}]\n");
  test::WsClient socket("127.0.0.1", daemon_->port());
  auto params = [&](const std::string& topic) {
    return json::object{{"agent", "worker"}, {"assignment", "stamped"}, {"callerCwd", work_.string()},
                        {"cliVars", {{"topic", topic}}}};
  };
  auto created = socket.call("runs.init", params("tides"));
  ASSERT_TRUE(created.contains("result")) << json::serialize(created);
  const auto& run = created.at("result").at("run");
  EXPECT_EQ(run.at("message"), "About tides");
  EXPECT_EQ(run.at("pinned"), true);

  auto blocked = socket.call("runs.start", params("no"));
  ASSERT_TRUE(blocked.contains("error")) << json::serialize(blocked);
  EXPECT_EQ(blocked.at("error").at("data").at("code"), "VALIDATION_FAILED");
  EXPECT_EQ(blocked.at("error").at("data").at("details").at("reason"), "not that topic");
  EXPECT_EQ(run_count(), 1u);
}

TEST_F(PrepareHooksTest, ASlowPrepareHookDoesNotHoldTheRequestWorkers) {
  write_module("slow", R"JS(
export default {
  name: "slow",
  prepare() { return new Promise((resolve) => setTimeout(() => resolve({ action: "continue" }), 2500)); },
};
)JS");
  write_assignment("slow", "message: go\nhooks:\n  prepare: [{name: slow}]\n");
  // More inits at once than the daemon has request workers (4): were they held, the
  // read below would wait for the hooks.
  std::vector<std::future<int>> inits;
  for (int i = 0; i < 6; ++i)
    inits.push_back(std::async(std::launch::async, [this] { return init("scripted", "slow").status; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto began = steady_clock::now();
  auto listed = client().get("/api/runs");
  const auto took = steady_clock::now() - began;
  EXPECT_EQ(listed.status, 200);
  EXPECT_LT(took, std::chrono::milliseconds(1500)) << "a read waited for prepare hooks";
  EXPECT_EQ(listed.json().at("runs").as_array().size(), 0u) << "a run was visible before its prepare hook ended";
  for (auto& f : inits) EXPECT_EQ(f.get(), 201);
  EXPECT_EQ(run_count(), 6u);
}

}  // namespace
}  // namespace agentry::integration
