// An agent-runner workflow shaped like its bundled plan-feature, end to end over the real
// daemon with the mock backend, real node and a real git repository; written from its
// documented behaviour, not its files (docs/agent-runner.md, "A workflow written for
// agent-runner"):
//
// - the caller starts a planner with `agent-runner run --agent planner --assignment plan
//   --var worktree_slug=...`; a `name:` prepare module hook derives repo_root and
//   worktree_path at init (a `requiredAt: prepare` var), which the tasks' titles use;
// - the planner's agent, from its shell, reports tasks with "$AGENT_RUNNER_CMD", is held
//   by a task-local require-children-success gate until it has started an implementer
//   child with `run ... --detach` that succeeded, attaches a summary, and reads its own
//   tasks with `run status --output-format json --field tasks`;
// - the child inherits the vars (`sources: [parent]`), and its beforeAttempt hooks (the
//   git-worktree built-in in agent-runner's form, then a `command` hook) move it into a
//   new worktree on a new branch, where its agent works;
// - the child's completion reaches the planner (a parent-completion notification, which
//   opens the planner's next session).
#include "agent_runner_cli_fixture.hpp"

#include "module_hook_fixture.hpp"
#include "support/git_repo.hpp"

#include <boost/json.hpp>

#include <cstdlib>
#include <filesystem>

namespace agentry::integration {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;

using agent_runner_cli::contains;


constexpr const char* derive_vars_hook = R"JS(
import path from "node:path";
export default {
  name: "derive-vars",
  prepare(ctx) {
    const slug = ctx.vars.worktree_slug;
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(slug)) throw new Error("worktree_slug is not git-safe: " + slug);
    const repo = ctx.run.cwd;
    return {
      action: "continue",
      mutate: {
        vars: { repo_root: repo, worktree_path: path.resolve(path.dirname(repo), path.basename(repo) + "-" + slug) },
        state: { derivedFor: slug },
      },
    };
  },
};
)JS";

constexpr const char* plan_assignment = R"(---
schemaVersion: 1
name: plan
message: "Plan {{worktree_slug}}."
vars:
  worktree_slug: {type: string, required: true, sources: [cli, web]}
  worktree_base_ref: {type: string, required: false, default: main, sources: [cli, web]}
  worktree_path: {type: string, required: true, requiredAt: prepare, sources: [cli]}
hooks:
  prepare:
    - name: derive-vars
callerInstructions: |
  Follow it with {{agent_runner_cmd}} run status {{run_id}}.
tasks:
  - id: orient
    title: Orient in {{repo_root}}
  - id: implement
    title: Implement in {{worktree_path}}
    hooks:
      - builtin: require-children-success
        with: {requireAny: true}
  - id: summary
    title: Attach the summary
---
Plan the feature, hand it to an implementer, and summarize.
)";

constexpr const char* implement_assignment = R"(---
schemaVersion: 1
name: implement
cwd: "{{repo_root}}"
vars:
  repo_root: {type: string, required: true, sources: [parent]}
  worktree_slug: {type: string, required: true, sources: [parent]}
  worktree_path: {type: string, required: true, sources: [parent]}
  worktree_base_ref: {type: string, required: true, sources: [parent]}
hooks:
  beforeAttempt:
    - builtin: git-worktree
      when: {sessionIndex: [0], attemptIndexInSession: [0]}
      with:
        repo: "{{repo_root}}"
        from: "{{worktree_base_ref}}"
        branch: "{{worktree_slug}}"
        path: "{{worktree_path}}"
        collision: reuse
    - builtin: command
      when: {sessionIndex: [0], attemptIndexInSession: [0]}
      with: {mode: status, command: git, args: [rev-parse, --verify, HEAD]}
tasks:
  - id: code
    title: Write the code
---
Implement what the planner asked for.
)";

/// The planner's agent: one shell script, as an agent's tool calls would be. A later
/// session (the child's completion notice) finds its work done and only says so.
constexpr const char* planner_script = R"SH(set -eu
R="$AGENT_RUNNER_CMD"
ME="$AGENT_RUNNER_RUN_ID"
field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s);console.log(eval(process.argv[1]))})' "$1"; }
done_before=$("$R" run status "$ME" --output-format json --field tasks | field 'v.tasks.find(t=>t.id==="summary").status')
if [ "$done_before" = completed ]; then echo "already planned"; exit 0; fi
"$R" task set "$ME" orient --status completed --notes "repo $PWD"
if "$R" task set "$ME" implement --status completed 2>/dev/null; then echo "the gate let the task through" >&2; exit 1; fi
CHILD=$("$R" run --agent implementer --assignment implement --detach --output-format json "Implement it" | field 'v.runId')
i=0
until [ "$("$R" run status "$CHILD" --output-format json --field status | field 'v.status')" = success ]; do
  i=$((i+1)); [ $i -lt 600 ] || { echo "child $CHILD did not succeed" >&2; exit 1; }
  sleep 0.1
done
"$R" task set "$ME" implement --status completed --notes "child $CHILD"
S="$(mktemp -d)/summary.md"
printf '# Summary\nImplemented by %s.\n' "$CHILD" > "$S"
"$R" attachment add "$ME" "$S"
rm -r "$(dirname "$S")"
"$R" task set "$ME" summary --status completed
)SH";

class AgentRunnerWorkflowTest : public agent_runner_cli::AgentRunnerCliTest {
 protected:
  void SetUp() override {
    if (!have_node()) GTEST_SKIP() << "node is not on PATH; module hooks need it";
    AgentRunnerCliTest::SetUp();
    if (HasFatalFailure()) return;
    repo_ = std::make_unique<test::GitRepo>(work_);
    repo_->commit_files({{"README.md", "# project\n"}}, "initial");
    dir_.write_file("config/hooks/derive-vars/hook.mjs", derive_vars_hook);
    dir_.write_file("config/assignments/plan/assignment.md", plan_assignment);
    dir_.write_file("config/assignments/implement/assignment.md", implement_assignment);
    const auto script = dir_.write_file("planner.sh", planner_script);
    write_agent("planner", "mock", "{steps: [{exec: ['/bin/sh', " + json::serialize(json::value(script.string())) + "]}]}");
    write_agent("implementer", "mock",
                "{steps: [{exec: ['/bin/sh', '-c', 'printf \"code\\\\n\" > feature.txt && "
                "\"$AGENT_RUNNER_CMD\" task set \"$AGENT_RUNNER_RUN_ID\" code --status completed "
                "--notes \"$(pwd) on $(git rev-parse --abbrev-ref HEAD)\"']}]}");
  }

  std::unique_ptr<test::GitRepo> repo_;
};

const json::object& task_of(const json::object& run, const std::string& id) {
  for (const auto& t : run.at("tasks").as_array())
    if (t.at("id").as_string() == id) return t.as_object();
  throw std::runtime_error("no task " + id);
}

TEST_P(AgentRunnerWorkflowTest, PlanHandsAFeatureToAnImplementerInItsOwnWorktree) {
  const std::string worktree = (work_.parent_path() / (work_.filename().string() + "-dark-mode")).string();

  auto planned = ar({"run", "--agent", "planner", "--assignment", "plan", "--var", "worktree_slug=dark-mode",
                     "--output-format", "json"});
  ASSERT_EQ(planned.code, 0) << planned.out << planned.err;
  const auto first = json::parse(planned.out).as_object();
  const std::string planner(first.at("runId").as_string());
  // What the assignment tells its caller, rendered for this run.
  EXPECT_TRUE(contains(planned.err, "run status " + planner)) << planned.err;

  // Prepare at init derived the vars before anything was rendered with them.
  const auto plan = wait_for_run(planner, [](const json::object& r) {
    return r.at("status") == "success" && r.at("sessions").as_array().size() >= 2;
  });
  EXPECT_EQ(plan.at("vars").at("worktree_path"), json::value(worktree));
  EXPECT_EQ(plan.at("vars").at("repo_root"), json::value(work_.string()));
  EXPECT_EQ(task_of(plan, "orient").at("title"), json::value("Orient in " + work_.string()));
  EXPECT_EQ(task_of(plan, "implement").at("title"), json::value("Implement in " + worktree));
  EXPECT_EQ(plan.at("hookData"), (json::object{{"derivedFor", "dark-mode"}}));
  for (const auto& t : plan.at("tasks").as_array()) EXPECT_EQ(t.at("status"), "completed") << t;

  // The gate held the task until a child had succeeded.
  std::string gate_audits;
  for (const auto& a : plan.at("hookAudits").as_array())
    if (a.at("phase") == "taskTransition") gate_audits += std::string(a.at("outcome").as_string()) + " ";
  EXPECT_EQ(gate_audits, "refused ok ") << plan.at("hookAudits");

  // The implementer: a child in the planner's group, in its own worktree and branch.
  const std::string notes(task_of(plan, "implement").at("notes").as_string());
  ASSERT_TRUE(notes.starts_with("child ")) << notes;
  const std::string child = notes.substr(6);
  const auto impl = show(child);
  EXPECT_EQ(impl.at("status"), "success");
  EXPECT_EQ(impl.at("parentRunId"), json::value(planner));
  EXPECT_EQ(impl.at("runGroupId"), plan.at("runGroupId"));
  EXPECT_EQ(impl.at("vars").at("worktree_path"), json::value(worktree));
  EXPECT_EQ(task_of(impl, "code").at("notes"), json::value(worktree + " on dark-mode"));
  EXPECT_TRUE(fs::exists(fs::path(worktree) / "feature.txt"));
  EXPECT_FALSE(fs::exists(work_ / "feature.txt")) << "the implementer wrote in the user's checkout";
  EXPECT_FALSE(repo_->git({"branch", "--list", "dark-mode"}).empty());

  // The summary, attached to the planner, as the caller reads it.
  auto attachments = ar({"attachment", "list", planner, "--output-format", "json"});
  ASSERT_EQ(attachments.code, 0) << attachments.err;
  EXPECT_TRUE(contains(attachments.out, "summary.md")) << attachments.out;
  auto tasks = ar({"run", "status", planner, "--output-format", "json", "--field", "tasks"});
  ASSERT_EQ(tasks.code, 0) << tasks.err;
  EXPECT_EQ(json::parse(tasks.out).as_object().size(), 1u) << tasks.out;

  // The child's completion opened the planner's next session.
  const auto& second = plan.at("sessions").at(1).as_object();
  EXPECT_TRUE(contains(std::string(second.at("prompt").as_string()), child)) << second;
}

INSTANTIATE_TEST_SUITE_P(Connected, AgentRunnerWorkflowTest, ::testing::Values(CliMode::connected),
                         [](const auto&) { return std::string("Connected"); });

}  // namespace
}  // namespace agentry::integration
