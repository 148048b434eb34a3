// Lifecycle hooks over the real daemon: executables written by the test into the
// config dir (a blocking and a prompt-rewriting beforeAttempt hook, a refused task
// transition, a hook that times out, one whose output is too large), the git-worktree
// built-in on a real repository (the run works and diffs in its own worktree; deleting
// the run removes it), and what RunDetail and RunSummary show of them. afterExit runs
// on every way a session ends (the agent, a passive run's tasks, an abort without a live
// session, a restart), and its refusal leaves the run, the session's record and the
// run.finished notification agreeing; an abort or a shutdown kills a running hook.
#include "daemon_fixture.hpp"
#include "support/git_repo.hpp"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

namespace agentry::integration {
namespace {
namespace fs = std::filesystem;
namespace json = boost::json;

class HooksTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    write_agent("scripted", "mock", "{}");  // plays the prompt's "@mock" lines
  }
  std::string start(const std::string& agent, const std::string& assignment, const std::string& message) {
    return start_assignment_run(agent, assignment, message);
  }
  json::array audits(const std::string& run) { return get_run(run).at("hookAudits").as_array(); }
  /// The run's hook audits of `phase`, once there are at least `n` (or a failure).
  json::array wait_for_audits(const std::string& run, const std::string& phase, std::size_t n = 1) {
    return wait_for_hook_audits(run, phase, n);
  }
  std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  /// Waits for `path` to hold a pid (written by a hook); 0 when it never does.
  pid_t wait_for_pid(const fs::path& path) {
    for (int i = 0; i < 400; ++i) {
      auto text = read_text(path);
      if (!text.empty() && text.back() == '\n') return static_cast<pid_t>(std::stol(text));
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    ADD_FAILURE() << "no pid in " << path;
    return 0;
  }
  /// True once `pid` is gone (or a zombie nobody reaped yet: it runs no more).
  bool process_gone(pid_t pid, std::chrono::milliseconds within = std::chrono::seconds(3)) {
    const auto deadline = std::chrono::steady_clock::now() + within;
    while (std::chrono::steady_clock::now() < deadline) {
      auto stat = read_text("/proc/" + std::to_string(pid) + "/stat");
      const auto close = stat.rfind(')');
      if (stat.empty() || (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z')) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return false;
  }
  bool timeline_mentions(const std::string& run, const std::string& text) {
    for (const auto& e : timeline(run))
      if (json::serialize(e).find(text) != std::string::npos) return true;
    return false;
  }
};

TEST_F(HooksTest, BeforeAttemptHooksBlockOrRewriteThePromptAndSetTheName) {
  write_script("assignments/gated/gate.sh",
               "input=$(cat)\n"
               "case \"$input\" in\n"
               "  *forbidden*) echo '{\"block\": \"no way\"}' ;;\n"
               "  *) printf '%s' '{\"prompt\": \"@mock {\\\"say\\\": \\\"rewritten by the hook\\\"}\", "
               "\"name\": \"named by a hook\", \"pinned\": true}' ;;\n"
               "esac\n");
  write_assignment("gated", "hooks:\n  - {id: gate, phase: beforeAttempt, run: [./gate.sh], when: {attempt: first}}\n");

  auto blocked = start("scripted", "gated", "forbidden @mock {\"say\": \"should not run\"}");
  EXPECT_EQ(wait_until_settled(blocked), "error");
  auto detail = get_run(blocked);
  EXPECT_NE(std::string(detail.at("statusReason").as_string()).find("hook 'gate' blocked: no way"), std::string::npos)
      << json::serialize(detail);
  EXPECT_EQ(detail.at("hookCount").as_int64(), 1);
  ASSERT_EQ(detail.at("resolvedHooks").as_array().size(), 1u);
  EXPECT_EQ(detail.at("resolvedHooks").at(0).at("phase").as_string(), "beforeAttempt");
  auto list = detail.at("hookAudits").as_array();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list.at(0).at("outcome").as_string(), "blocked");
  EXPECT_EQ(list.at(0).at("exitCode").as_int64(), 0);
  EXPECT_EQ(detail.at("hookState").at("gate").at("lastOutcome").as_string(), "blocked");
  EXPECT_FALSE(timeline_mentions(blocked, "should not run"));

  auto rewritten = start("scripted", "gated", "hello @mock {\"say\": \"the original\"}");
  EXPECT_EQ(wait_until_settled(rewritten), "success");
  auto after = get_run(rewritten);
  EXPECT_EQ(after.at("name").as_string(), "named by a hook");
  EXPECT_TRUE(after.at("pinned").as_bool());
  EXPECT_TRUE(timeline_mentions(rewritten, "rewritten by the hook"));
  EXPECT_FALSE(timeline_mentions(rewritten, "the original\\\"")) << "the mock played the prompt it was given";
  EXPECT_EQ(after.at("hookAudits").at(0).at("outcome").as_string(), "ok");
  // The session's record shows the prompt the agent was given, not the one it replaced.
  ASSERT_EQ(after.at("sessions").as_array().size(), 1u) << json::serialize(after);
  EXPECT_EQ(after.at("sessions").at(0).at("prompt").as_string(), "@mock {\"say\": \"rewritten by the hook\"}");
  // The summary counts them too.
  auto summaries = client().get("/api/runs?global=true");
  ASSERT_EQ(summaries.status, 200);
  const auto listing = summaries.json();
  for (const auto& s : listing.at("runs").as_array()) {
    if (s.at("runId").as_string() == rewritten) {
      EXPECT_EQ(s.at("hookCount").as_int64(), 1);
    }
  }
}

TEST_F(HooksTest, TaskTransitionsCanBeRefusedAndHooksAreBounded) {
  write_script("assignments/tasks/refuse.sh", "cat > /dev/null; echo '{\"refuse\": \"tests are red\"}'\n");
  write_script("assignments/tasks/slow.sh", "sleep 30\n");
  write_script("assignments/tasks/loud.sh",
               "yes e | head -c 5000 >&2; yes o | head -c 100000\n");
  write_assignment("tasks",
                   "tasks:\n  - {id: plan, title: Plan}\n  - {id: slow, title: Slow}\n  - {id: loud, title: Loud}\n"
                   "hooks:\n"
                   "  - {id: tests, phase: taskTransition, run: [./refuse.sh], when: {task: plan, to: completed}}\n"
                   "  - {id: sleepy, phase: taskTransition, run: [./slow.sh], timeoutSec: 1, when: {task: slow}}\n"
                   "  - {id: noisy, phase: taskTransition, run: [./loud.sh], when: {task: loud}}\n");
  auto run = start("worker", "tasks", "go");
  ASSERT_FALSE(run.empty());
  const std::string tasks = "/api/runs/" + run + "/tasks/";

  auto refused = client().patch_json(tasks + "plan", json::object{{"status", "completed"}});
  EXPECT_EQ(error_code_of(refused), "CONFLICT") << refused.body;
  EXPECT_EQ(refused.json().at("error").at("details").at("reason").as_string(), "hook_refused");
  EXPECT_NE(refused.body.find("tests are red"), std::string::npos);
  EXPECT_EQ(client().get(tasks + "plan").json().at("task").at("status").as_string(), "pending");
  // The filter lets other transitions through.
  EXPECT_EQ(client().patch_json(tasks + "plan", json::object{{"status", "in_progress"}}).status, 200);

  const auto started = std::chrono::steady_clock::now();
  auto slow = client().patch_json(tasks + "slow", json::object{{"status", "completed"}});
  const auto waited = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(error_code_of(slow), "CONFLICT") << slow.body;
  EXPECT_LT(waited, std::chrono::seconds(10));

  auto loud = client().patch_json(tasks + "loud", json::object{{"status", "completed"}});
  EXPECT_EQ(error_code_of(loud), "CONFLICT") << loud.body;

  auto detail = get_run(run);
  std::map<std::string, json::object> by_hook;
  for (const auto& a : detail.at("hookAudits").as_array()) by_hook[std::string(a.at("hookId").as_string())] = a.as_object();
  ASSERT_EQ(by_hook.size(), 3u) << json::serialize(detail.at("hookAudits"));
  EXPECT_EQ(by_hook["tests"].at("outcome").as_string(), "refused");
  EXPECT_EQ(by_hook["sleepy"].at("outcome").as_string(), "timedOut");
  EXPECT_LT(by_hook["sleepy"].at("durationMs").as_int64(), 5000);
  EXPECT_EQ(by_hook["noisy"].at("outcome").as_string(), "failed");
  EXPECT_TRUE(by_hook["noisy"].at("outputTruncated").as_bool());
  EXPECT_NE(std::string(by_hook["noisy"].at("message").as_string()).find("exceeded"), std::string::npos);
  EXPECT_LE(by_hook["noisy"].at("stderr").as_string().size(), 1024u);
  EXPECT_EQ(detail.at("hookState").at("tests").at("lastOutcome").as_string(), "refused");
  EXPECT_EQ(detail.at("hookCount").as_int64(), 3);
}

TEST_F(HooksTest, ATaskThatChangesWhileItsTransitionHooksRunIsNotChangedOnTheirVerdict) {
  // The hook approves plan: pending -> completed, but meanwhile another process (the
  // embedded CLI, on the same database) moves plan to in_progress.
  write_script("assignments/racy/meddle.sh",
               "cat > /dev/null\n"
               "AGENTRY_CONNECT= \"$AGENTRY_BIN\" task set plan --status in_progress --run \"$AGENTRY_RUN_ID\" "
               ">&2 || exit 1\n"
               "echo '{}'\n");
  write_assignment("racy", "tasks:\n  - {id: plan, title: Plan}\n  - {id: rest, title: Rest}\n"
                           "hooks:\n  - {id: meddle, phase: taskTransition, run: [./meddle.sh], when: {to: completed}}\n");
  auto run = start("worker", "racy", "go");
  ASSERT_FALSE(run.empty());
  auto raced = client().patch_json("/api/runs/" + run + "/tasks/plan", json::object{{"status", "completed"}});
  ASSERT_EQ(error_code_of(raced), "CONFLICT") << raced.body;
  EXPECT_EQ(raced.json().at("error").at("details").at("reason"), "task_changed") << raced.body;
  EXPECT_EQ(client().get("/api/runs/" + run + "/tasks/plan").json().at("task").at("status"), "in_progress");
  auto ran = audits(run);
  ASSERT_EQ(ran.size(), 1u) << "the hook ran, and is recorded";
  EXPECT_EQ(ran.at(0).at("outcome"), "ok") << "the hook itself let it through";
  // Sent again, the transition is judged from where the task now is (the hook's own
  // change is a no-op this time), and made.
  auto again = client().patch_json("/api/runs/" + run + "/tasks/plan", json::object{{"status", "completed"}});
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(client().get("/api/runs/" + run + "/tasks/plan").json().at("task").at("status"), "completed");
  EXPECT_EQ(audits(run).size(), 2u);
}

TEST_F(HooksTest, GitWorktreeGivesTheRunItsOwnBranchAndDeleteRemovesIt) {
  test::GitRepo repo(work_);
  repo.commit_files({{"README.md", "# project\n"}}, "initial");
  write_agent("editor", "mock", "{steps: [{exec: ['/bin/sh', '-c', 'printf \"run\\\\n\" > run-file.txt']}, {say: done}]}");
  write_assignment("isolated", "hooks:\n  - {phase: prepare, builtin: git-worktree, with: {base: main}}\n");
  auto run = start("editor", "isolated", "go");
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(wait_until_settled(run), "success");
  auto detail = get_run(run);
  const fs::path worktree = fs::weakly_canonical(home_ / "worktrees" / run);
  EXPECT_EQ(detail.at("cwd").as_string(), worktree.string()) << json::serialize(detail);
  EXPECT_TRUE(fs::exists(worktree / "run-file.txt"));
  EXPECT_FALSE(fs::exists(work_ / "run-file.txt")) << "the user's checkout is untouched";
  EXPECT_EQ(repo.git({"rev-parse", "--abbrev-ref", "HEAD"}), "main\n");
  EXPECT_NE(repo.git({"branch", "--list", "agentry/" + run}), "");
  EXPECT_EQ(detail.at("hookAudits").at(0).at("outcome").as_string(), "ok");

  auto diff = client().get("/api/runs/" + run + "/workspace/diff?mode=run");
  ASSERT_EQ(diff.status, 200) << diff.body;
  ASSERT_EQ(diff.json().at("files").as_array().size(), 1u) << diff.body;
  EXPECT_EQ(diff.json().at("files").at(0).at("path").as_string(), "run-file.txt");

  // Started again after a reset, the run keeps its worktree and branch.
  ASSERT_EQ(client().post_json("/api/runs/" + run + "/reset", json::object{}).status, 200);
  ASSERT_EQ(client().post_json("/api/runs/" + run + "/resume", json::object{}).status, 200);
  EXPECT_EQ(wait_until_settled(run), "success");
  auto again = get_run(run);
  EXPECT_EQ(again.at("cwd").as_string(), worktree.string());
  EXPECT_EQ(again.at("hookAudits").as_array().size(), 2u);
  EXPECT_EQ(again.at("hookState").at("prepare-0").at("runs").as_int64(), 2);

  // Archiving keeps the worktree; deleting removes it.
  ASSERT_EQ(client().post_json("/api/runs/" + run + "/archive", json::object{}).status, 200);
  EXPECT_TRUE(fs::exists(worktree));
  auto removed = client().del("/api/runs/" + run);
  ASSERT_EQ(removed.status, 200) << removed.body;
  for (int i = 0; i < 200 && fs::exists(worktree); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  EXPECT_FALSE(fs::exists(worktree));
  for (int i = 0; i < 200 && repo.git({"branch", "--list", "agentry/" + run}) != ""; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  EXPECT_EQ(repo.git({"branch", "--list", "agentry/" + run}), "") << "unchanged, so deleted";
  EXPECT_EQ(repo.git({"rev-parse", "--abbrev-ref", "HEAD"}), "main\n");
}

TEST_F(HooksTest, AnAgentsWorktreeOptionNeverReusesAnExistingBranch) {
  test::GitRepo repo(work_);
  repo.commit_files({{"README.md", "# project\n"}}, "initial");
  write_agent("isolated", "mock", "{steps: [{say: done}]}", "worktree: {base: main}\n");
  json::object body{{"agent", "isolated"}, {"callerCwd", work_.string()}, {"overrides", {{"message", "go"}}}};
  auto created = client().post_json("/api/runs/init", body);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string run(created.json().at("run").at("runId").as_string());
  EXPECT_EQ(get_run(run).at("resolvedHooks").at(0).at("builtin").as_string(), "git-worktree");
  // The user made the branch agentry/<runId> meanwhile: agentry leaves it alone.
  repo.git({"branch", "agentry/" + run});
  const std::string tip = repo.git({"rev-parse", "agentry/" + run});
  ASSERT_EQ(client().post_json("/api/runs/" + run + "/resume", json::object{}).status, 200);
  EXPECT_EQ(wait_until_settled(run), "error");
  auto detail = get_run(run);
  EXPECT_NE(std::string(detail.at("statusReason").as_string()).find("already exists"), std::string::npos)
      << json::serialize(detail);
  EXPECT_EQ(detail.at("hookAudits").at(0).at("outcome").as_string(), "failed");
  EXPECT_EQ(detail.at("cwd").as_string(), fs::weakly_canonical(work_).string());
  EXPECT_EQ(repo.git({"rev-parse", "agentry/" + run}), tip);
  EXPECT_FALSE(fs::exists(home_ / "worktrees" / run));
}

TEST_F(HooksTest, RequireChildrenSuccessRefusesWhileAChildFailedAndAfterAttemptHooksSetTheNote) {
  write_script("assignments/family/note.sh",
               "cat > /dev/null; printf '%s' '{\"note\": \"noted by afterAttempt\"}'\n");
  write_assignment("family",
                   "tasks:\n  - {id: wrap, title: Wrap up}\n"
                   "hooks:\n"
                   "  - {id: kids, phase: taskTransition, builtin: require-children-success, when: {to: completed}}\n"
                   "  - {id: note, phase: afterAttempt, run: [./note.sh], when: {outcome: error}}\n");
  auto parent = start("worker", "family", "go");
  ASSERT_FALSE(parent.empty());
  json::object child_body{{"agent", "scripted"},
                          {"assignment", "family"},
                          {"callerCwd", work_.string()},
                          {"parentRunId", parent},
                          {"overrides", {{"message", "@mock {\"fail\": \"no\"}"}, {"maxRetries", 0}}}};
  auto child = client().post_json("/api/runs", child_body);
  ASSERT_EQ(child.status, 201) << child.body;
  const std::string child_id(child.json().at("run").at("runId").as_string());
  EXPECT_EQ(wait_until_settled(child_id), "exhausted");  // its task is left undone
  json::object child_run;
  for (int i = 0; i < 200; ++i) {
    child_run = get_run(child_id);
    if (!child_run.at("note").is_null()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EXPECT_EQ(child_run.at("note"), json::value("noted by afterAttempt")) << json::serialize(child_run);

  auto refused = client().patch_json("/api/runs/" + parent + "/tasks/wrap", json::object{{"status", "completed"}});
  EXPECT_EQ(error_code_of(refused), "CONFLICT") << refused.body;
  EXPECT_NE(refused.body.find(child_id + " (exhausted)"), std::string::npos) << refused.body;
  EXPECT_EQ(get_run(parent).at("hookState").at("kids").at("lastOutcome").as_string(), "refused");
}

TEST_F(HooksTest, RequireAnyRefusesUntilTheRunHasAChild) {
  write_assignment("lead", "tasks:\n  - {id: wrap, title: Wrap up}\n"
                           "hooks:\n  taskTransition:\n"
                           "    - {builtin: require-children-success, with: {requireAny: true}, when: {toStatus: completed}}\n");
  auto parent = start("worker", "lead", "go");
  ASSERT_FALSE(parent.empty());
  const std::string wrap = "/api/runs/" + parent + "/tasks/wrap";
  auto refused = client().patch_json(wrap, json::object{{"status", "completed"}});
  EXPECT_EQ(error_code_of(refused), "CONFLICT") << refused.body;
  EXPECT_NE(refused.body.find("no child run yet"), std::string::npos) << refused.body;
  // Other transitions are not its business (when.toStatus).
  EXPECT_EQ(client().patch_json(wrap, json::object{{"status", "in_progress"}}).status, 200);

  json::object child_body{{"agent", "scripted"},
                          {"callerCwd", work_.string()},
                          {"parentRunId", parent},
                          {"overrides", {{"message", "@mock {\"say\": \"done\"}"}}}};
  auto child = client().post_json("/api/runs", child_body);
  ASSERT_EQ(child.status, 201) << child.body;
  EXPECT_EQ(wait_until_settled(std::string(child.json().at("run").at("runId").as_string())), "success");
  auto accepted = client().patch_json(wrap, json::object{{"status", "completed"}});
  EXPECT_EQ(accepted.status, 200) << accepted.body;
}

TEST_F(HooksTest, AgentRunnersWhenFiltersPickTheSessionAttemptAndTask) {
  // Every hook only records that it ran (its audit); `when` decides which do.
  write_script("assignments/picky/quiet.sh", "cat > /dev/null\n");
  write_script("assignments/picky/refuse.sh", "cat > /dev/null; echo '{\"refuse\": \"not plan\"}'\n");
  write_assignment("picky",
                   "tasks:\n  - {id: plan, title: Plan}\n  - {id: build, title: Build}\n"
                   "hooks:\n"
                   "  beforeAttempt:\n"
                   "    - {id: first-session, run: [./quiet.sh], when: {sessionIndex: 0}}\n"
                   "    - {id: later-session, run: [./quiet.sh], when: {sessionIndex: [1, 2]}}\n"
                   "  afterAttempt:\n"
                   "    - {id: retry-only, run: [./quiet.sh], when: {attemptIndexInSession: 1}}\n"
                   "  afterExit:\n"
                   "    - {id: exit-first, run: [./quiet.sh], when: {sessionIndex: 0, attemptIndexInSession: [1]}}\n"
                   "  taskTransition:\n"
                   "    - {id: gate, run: [./refuse.sh], when: {taskIds: [plan], fromStatus: [pending], "
                   "toStatus: [completed], source: [task-set]}}\n");
  json::object body{{"agent", "scripted"},
                    {"assignment", "picky"},
                    {"callerCwd", work_.string()},
                    {"overrides", {{"message", "@mock {\"say\": \"working\"}"}, {"maxRetries", 1}}}};
  auto created = client().post_json("/api/runs", body);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string run(created.json().at("run").at("runId").as_string());
  EXPECT_EQ(wait_until_settled(run), "exhausted");  // two attempts, its tasks undone
  wait_for_audits(run, "afterExit");
  std::map<std::string, int> ran;
  for (const auto& a : audits(run)) ++ran[std::string(a.at("hookId").as_string())];
  EXPECT_EQ(ran["first-session"], 2) << "both attempts of session 0";
  EXPECT_EQ(ran["later-session"], 0);
  EXPECT_EQ(ran["retry-only"], 1) << "the second attempt of the session only";
  EXPECT_EQ(ran["exit-first"], 1) << "session 0 ended on its second attempt";

  // A second session: sessionIndex 1.
  auto resumed = client().post_json("/api/runs/" + run + "/resume",
                                    json::object{{"message", "@mock {\"say\": \"again\"}"}});
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  wait_until_settled(run);
  wait_for_audits(run, "beforeAttempt", 3);
  ran.clear();
  for (const auto& a : audits(run)) ++ran[std::string(a.at("hookId").as_string())];
  EXPECT_GE(ran["later-session"], 1);
  EXPECT_EQ(ran["first-session"], 2);
  EXPECT_EQ(ran["exit-first"], 1) << "session 1 is not session 0";

  // taskIds + fromStatus + toStatus: only plan, pending -> completed, is judged.
  const std::string tasks = "/api/runs/" + run + "/tasks/";
  EXPECT_EQ(client().patch_json(tasks + "build", json::object{{"status", "completed"}}).status, 200);
  auto refused = client().patch_json(tasks + "plan", json::object{{"status", "completed"}});
  EXPECT_EQ(error_code_of(refused), "CONFLICT") << refused.body;
  EXPECT_NE(refused.body.find("not plan"), std::string::npos) << refused.body;
  EXPECT_EQ(client().patch_json(tasks + "plan", json::object{{"status", "in_progress"}}).status, 200);
  EXPECT_EQ(client().patch_json(tasks + "plan", json::object{{"status", "completed"}}).status, 200)
      << "from in_progress, not pending";
}

TEST_F(HooksTest, AHookAttachesFilesItNames) {
  write_script("assignments/report/attach.sh",
               "cat > /dev/null; printf 'findings\\n' > report.txt\n"
               "printf '%s' '{\"attachments\": [\"report.txt\", {\"path\": \"missing.txt\"}]}'\n");
  write_assignment("report", "hooks:\n  - {id: attach, phase: afterAttempt, run: [./attach.sh]}\n");
  auto run = start("scripted", "report", "@mock {\"say\": \"done\"}");
  ASSERT_FALSE(run.empty());
  wait_until_settled(run);
  json::object detail;
  for (int i = 0; i < 200; ++i) {
    detail = get_run(run);
    if (!detail.at("hookAudits").as_array().empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  const auto& attachments = detail.at("attachments").as_array();
  ASSERT_EQ(attachments.size(), 1u) << json::serialize(detail);
  EXPECT_EQ(attachments.at(0).at("name"), json::value("report.txt"));
  EXPECT_EQ(attachments.at(0).at("size").to_number<int>(), 9);
  const std::string message(detail.at("hookAudits").at(0).at("message").as_string());
  EXPECT_NE(message.find("attached 1 of 2 files"), std::string::npos) << message;
  EXPECT_NE(message.find("missing.txt"), std::string::npos) << message;
}

TEST_F(HooksTest, AnAfterExitRefusalBlocksTheRunItsSessionAndItsNotificationAlike) {
  start_daemon({{"AGENTRY_NOTIFY_POLL_MS", "50"}});
  const auto out = dir_.path() / "finished.json";
  write_script("assignments/strict/refuse.sh", "cat > /dev/null; echo '{\"refuse\": \"not good enough\"}'\n");
  write_assignment("strict", "hooks:\n  - {id: strict, phase: afterExit, run: [./refuse.sh], when: {status: success}}\n"
                             "notify:\n  - command: [tee, '" + out.string() + "']\n    events: [run.finished]\n");
  auto run = start("scripted", "strict", "@mock {\"say\": \"done\"}");
  ASSERT_FALSE(run.empty());
  json::object detail;
  for (int i = 0; i < 400; ++i) {
    detail = get_run(run);
    if (detail.at("status") == "blocked") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_EQ(detail.at("status"), "blocked") << json::serialize(detail);
  const std::string reason(detail.at("statusReason").as_string());
  EXPECT_NE(reason.find("not good enough"), std::string::npos) << reason;
  // The session's record says the same as the run.
  ASSERT_EQ(detail.at("sessions").as_array().size(), 1u);
  EXPECT_EQ(detail.at("sessions").at(0).at("status"), "blocked") << json::serialize(detail.at("sessions"));
  EXPECT_EQ(detail.at("sessions").at(0).at("endReason"), json::value(reason));
  // And so does the one run.finished notification, delivered once the hook had spoken.
  json::object notification;
  for (int i = 0; i < 400; ++i) {
    const auto shown = get_run(run);
    const auto& list = shown.at("notifications").as_array();
    if (!list.empty() && list.at(0).at("state") == "delivered") {
      notification = list.at(0).as_object();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_FALSE(notification.empty()) << "the notification was never delivered";
  EXPECT_EQ(get_run(run).at("notifications").as_array().size(), 1u);
  auto body = json::parse(read_text(out)).as_object();
  EXPECT_EQ(body.at("event"), "run.finished");
  EXPECT_EQ(body.at("run").at("status"), "blocked") << json::serialize(body);
  EXPECT_EQ(body.at("run").at("statusReason"), json::value(reason));
  auto after_exit = wait_for_audits(run, "afterExit");
  ASSERT_EQ(after_exit.size(), 1u);
  EXPECT_EQ(after_exit.at(0).at("outcome"), "refused");
}

TEST_F(HooksTest, AfterExitRunsWhenAPassiveRunsTasksEndItAndWhenAnAbortEndsARunWithNoLiveSession) {
  write_script("assignments/watched/seen.sh", "cat > /dev/null; echo \"$AGENTRY_RUN_ID\" >> \"$(dirname \"$0\")/seen.log\"\n");
  write_script("assignments/watched/kids.sh", "cat > /dev/null; echo '{\"refuse\": \"children first\"}'\n");
  write_assignment("watched", "tasks:\n  - {id: only, title: Only}\n"
                              "hooks:\n  - {id: seen, phase: afterExit, run: [./seen.sh]}\n"
                              "  - {id: kids, phase: afterExit, run: [./kids.sh], when: {status: success}}\n");
  // A passive run (the worker agent) whose last task completes: its session ends by tasks.
  auto finished = start("worker", "watched", "go");
  ASSERT_FALSE(finished.empty());
  auto done = client().patch_json("/api/runs/" + finished + "/tasks/only", json::object{{"status", "completed"}});
  ASSERT_EQ(done.status, 200) << done.body;
  auto audits_of_finished = wait_for_audits(finished, "afterExit", 2);
  ASSERT_EQ(audits_of_finished.size(), 2u);
  EXPECT_EQ(audits_of_finished.at(0).at("hookId"), "seen");
  EXPECT_EQ(audits_of_finished.at(1).at("outcome"), "refused");
  auto detail = get_run(finished);
  EXPECT_EQ(detail.at("status"), "blocked") << json::serialize(detail);
  EXPECT_EQ(detail.at("sessions").at(0).at("status"), "blocked");
  EXPECT_NE(std::string(detail.at("statusReason").as_string()).find("children first"), std::string::npos);

  // A passive run aborted: no live session ends it, the abort does.
  auto aborted = start("worker", "watched", "go");
  ASSERT_FALSE(aborted.empty());
  auto abort = client().post_json("/api/runs/" + aborted + "/abort", json::object{});
  ASSERT_EQ(abort.status, 200) << abort.body;
  auto audits_of_aborted = wait_for_audits(aborted, "afterExit");
  ASSERT_EQ(audits_of_aborted.size(), 1u) << "the success-only hook does not match an abort";
  EXPECT_EQ(audits_of_aborted.at(0).at("hookId"), "seen");
  EXPECT_EQ(run_status(aborted), "aborted");
  // Once per session end.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(read_text(config_ / "assignments/watched/seen.log"), finished + "\n" + aborted + "\n");
}

TEST_F(HooksTest, AfterExitRunsWhenARestartFindsTheRunOrphaned) {
  write_agent("hanger", "mock", "{steps: [{hang: true}]}");
  write_script("assignments/orphaned/seen.sh", "cat > /dev/null; printf '%s' '{\"note\": \"seen after the restart\"}'\n");
  write_assignment("orphaned", "hooks:\n  - {id: seen, phase: afterExit, run: [./seen.sh], when: {status: error}}\n");
  auto run = start("hanger", "orphaned", "go");
  ASSERT_FALSE(run.empty());
  ASSERT_EQ(run_status(run), "running");
  daemon_->kill9();
  start_daemon();  // finds the run orphaned: it ends as error, and its afterExit hooks run
  EXPECT_EQ(run_status(run), "error");
  auto after_exit = wait_for_audits(run, "afterExit");
  ASSERT_EQ(after_exit.size(), 1u);
  EXPECT_EQ(after_exit.at(0).at("outcome"), "ok");
  EXPECT_EQ(get_run(run).at("note"), "seen after the restart");
}

TEST_F(HooksTest, AbortKillsARunningHookPromptlyAndTheHookIsAuditedCancelled) {
  const auto pid_file = dir_.path() / "hook.pid";
  write_script("assignments/slow/sleepy.sh",
               "cat > /dev/null; sleep 60 & echo $! > '" + pid_file.string() + "'; wait\n");
  write_assignment("slow", "hooks:\n  - {id: sleepy, phase: beforeAttempt, run: [./sleepy.sh], timeoutSec: 120}\n");
  auto run = start("scripted", "slow", "@mock {\"say\": \"never\"}");
  ASSERT_FALSE(run.empty());
  const pid_t sleeper = wait_for_pid(pid_file);
  ASSERT_GT(sleeper, 0);
  const auto asked = std::chrono::steady_clock::now();
  auto abort = client().post_json("/api/runs/" + run + "/abort", json::object{{"reason", "stop waiting"}});
  EXPECT_EQ(abort.status, 200) << abort.body;
  EXPECT_EQ(wait_until_settled(run, std::chrono::seconds(10)), "aborted");
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(5));
  auto detail = get_run(run);
  EXPECT_EQ(detail.at("statusReason"), "stop waiting") << json::serialize(detail);
  auto list = detail.at("hookAudits").as_array();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list.at(0).at("outcome"), "cancelled");
  EXPECT_LT(list.at(0).at("durationMs").as_int64(), 10000);
  EXPECT_FALSE(timeline_mentions(run, "never"));
  EXPECT_TRUE(process_gone(sleeper)) << "the hook's process group outlived the abort";
}

TEST_F(HooksTest, AHookIsDoneWhenItExitsEvenIfItsBackgroundChildKeepsItsOutputOpen) {
  const auto pid_file = dir_.path() / "left-behind.pid";
  // The background sleep inherits the hook's stdout and stderr and outlives it.
  write_script("assignments/quick/quick.sh",
               "cat > /dev/null\nsleep 60 &\necho $! > '" + pid_file.string() + "'\n"
               "echo '{\"name\": \"named by a quick hook\"}'\n");
  write_assignment("quick", "hooks:\n  - {id: quick, phase: beforeAttempt, run: [./quick.sh], timeoutSec: 10}\n");
  auto run = start("scripted", "quick", "@mock {\"say\": \"ran after the hook\"}");
  ASSERT_FALSE(run.empty());
  const pid_t sleeper = wait_for_pid(pid_file);
  EXPECT_EQ(wait_until_settled(run, std::chrono::seconds(20)), "success");
  auto detail = get_run(run);
  auto list = detail.at("hookAudits").as_array();
  ASSERT_EQ(list.size(), 1u) << json::serialize(detail);
  EXPECT_EQ(list.at(0).at("outcome"), "ok") << json::serialize(list);
  EXPECT_EQ(list.at(0).at("exitCode").as_int64(), 0);
  EXPECT_LT(list.at(0).at("durationMs").as_int64(), 5000) << "the hook waited for its child, not for itself";
  EXPECT_EQ(detail.at("name"), "named by a quick hook");  // its output, read up to its exit
  EXPECT_TRUE(timeline_mentions(run, "ran after the hook"));
  if (sleeper > 0) ::kill(sleeper, SIGKILL);
}

TEST_F(HooksTest, AShutdownKillsARunningHookInsteadOfWaitingForIt) {
  const auto pid_file = dir_.path() / "hook.pid";
  write_script("assignments/slow/sleepy.sh",
               "cat > /dev/null; sleep 60 & echo $! > '" + pid_file.string() + "'; wait\n");
  write_assignment("slow", "hooks:\n  - {id: sleepy, phase: beforeAttempt, run: [./sleepy.sh], timeoutSec: 120}\n");
  auto run = start("scripted", "slow", "@mock {\"say\": \"never\"}");
  ASSERT_FALSE(run.empty());
  const pid_t sleeper = wait_for_pid(pid_file);
  ASSERT_GT(sleeper, 0);
  const auto asked = std::chrono::steady_clock::now();
  EXPECT_EQ(daemon_->stop(SIGTERM, std::chrono::seconds(20)), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(8));
  EXPECT_TRUE(process_gone(sleeper)) << "the hook's process group outlived the daemon";
  start_daemon();
  auto detail = get_run(run);
  EXPECT_EQ(detail.at("status"), "aborted") << json::serialize(detail);
  ASSERT_EQ(detail.at("hookAudits").as_array().size(), 1u);
  EXPECT_EQ(detail.at("hookAudits").at(0).at("outcome"), "cancelled");
}

TEST_F(HooksTest, SlowTaskTransitionHooksNeverHoldTheRequestWorkers) {
  // 20 transitions whose hooks take 5 s each (more than the daemon has request workers)
  // must leave every other request as fast as ever: the hooks wait elsewhere.
  write_script("assignments/slow/wait.sh", "cat > /dev/null; sleep 5; echo '{}'\n");
  write_assignment("slow", "tasks:\n  - {id: t, title: T}\n"
                           "hooks:\n  - {id: wait, phase: taskTransition, run: [./wait.sh], timeoutSec: 60}\n");
  std::vector<std::string> runs;
  for (int i = 0; i < 20; ++i) runs.push_back(start("worker", "slow", "go"));
  std::atomic<int> answered{0}, approved{0};
  std::vector<std::thread> transitions;
  for (const auto& run : runs)
    transitions.emplace_back([&, run] {
      auto http = client();
      http.set_timeout(std::chrono::seconds(60));  // 20 hooks of 5 s, 16 at a time
      try {
        auto response = http.patch_json("/api/runs/" + run + "/tasks/t", json::object{{"status", "completed"}});
        if (response.status == 200) ++approved;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "PATCH of run " << run << ": " << e.what();
      }
      ++answered;
    });
  // Every transition is in its hook (the hooks' audit is written when they end, so
  // wait on the request count the daemon has accepted instead: a short settle).
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  std::vector<double> latencies;
  for (int i = 0; i < 200; ++i) {
    const auto started = std::chrono::steady_clock::now();
    auto daemon = client().get("/api/daemon");
    latencies.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
    ASSERT_EQ(daemon.status, 200);
  }
  const int answered_while_measuring = answered.load();
  for (auto& t : transitions) t.join();
  EXPECT_EQ(answered_while_measuring, 0) << "the hooks ended before the measurement did: it measured nothing";
  EXPECT_EQ(approved.load(), 20);
  std::sort(latencies.begin(), latencies.end());
  std::cout << "GET /api/daemon while 20 taskTransition hooks ran: p50 " << latencies[99] << " ms, p99 "
            << latencies[197] << " ms, max " << latencies.back() << " ms\n";
  EXPECT_LT(latencies[197], 50.0) << "GET /api/daemon p99 while 20 taskTransition hooks ran; max " << latencies.back();
  for (const auto& run : runs)
    EXPECT_EQ(client().get("/api/runs/" + run + "/tasks/t").json().at("task").at("status"), "completed");
}

}  // namespace
}  // namespace agentry::integration
