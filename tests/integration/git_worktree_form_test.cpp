// agent-runner's form of the git-worktree built-in (`with: {repo, from, branch, path,
// collision}`) over the real daemon, on real repositories: the shape of its bundled
// plan-feature template (beforeAttempt, a user's branch reused, `command` hooks running
// git in the new cwd), a new branch from `from` at prepare with the var worktree_path,
// the collision policies, values that cannot be used, and what deleting the run leaves.
#include "daemon_fixture.hpp"
#include "support/git_repo.hpp"

#include <filesystem>
#include <fstream>
#include <thread>

namespace agentry::integration {
namespace {
namespace fs = std::filesystem;
namespace json = boost::json;

class GitWorktreeForm : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    repo_ = std::make_unique<test::GitRepo>(work_);
    first_ = repo_->commit_files({{"README.md", "# project\n"}}, "initial");
    // The agent leaves a file where it works: in the worktree, if the cwd moved there.
    write_agent("editor", "mock", "{steps: [{exec: ['/bin/sh', '-c', 'printf \"run\\\\n\" > run-file.txt']}, {say: done}]}");
  }
  /// POST /api/runs for the editor on `assignment`, with `vars` as the caller's.
  std::string start(const std::string& assignment, json::object vars = {}) {
    json::object body{{"agent", "editor"},
                      {"assignment", assignment},
                      {"callerCwd", work_.string()},
                      {"cliVars", std::move(vars)},
                      {"overrides", {{"message", "go"}}}};
    auto response = client().post_json("/api/runs", body);
    EXPECT_EQ(response.status, 201) << response.body;
    return response.status == 201 ? std::string(response.json().at("run").at("runId").as_string()) : "";
  }
  /// An assignment with one prepare git-worktree hook in agent-runner's form.
  void write_prepare(const std::string& name, const std::string& with, const std::string& more = "") {
    write_assignment(name, more + "hooks:\n  prepare:\n    - builtin: git-worktree\n      with: " + with + "\n");
  }
  json::object audit(const std::string& run, const std::string& hook_id) {
    const auto detail = get_run(run);  // kept: the loop reads inside it
    for (const auto& a : detail.at("hookAudits").as_array())
      if (a.at("hookId").as_string() == hook_id) return a.as_object();
    ADD_FAILURE() << "no audit of " << hook_id;
    return {};
  }
  std::string message(const std::string& run, const std::string& hook_id) {
    return std::string(audit(run, hook_id).at("message").as_string());
  }
  /// Archives and deletes the run, then waits for `gone` to be removed (off the request).
  void delete_run_and_wait_for(const std::string& run, const fs::path& gone) {
    ASSERT_EQ(client().post_json("/api/runs/" + run + "/archive", json::object{}).status, 200);
    auto removed = client().del("/api/runs/" + run);
    ASSERT_EQ(removed.status, 200) << removed.body;
    for (int i = 0; i < 400 && fs::exists(gone); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  bool has_branch(const std::string& branch) { return !repo_->git({"branch", "--list", branch}).empty(); }
  static std::string canonical(const fs::path& p) { return fs::weakly_canonical(p).string(); }

  std::unique_ptr<test::GitRepo> repo_;
  std::string first_;
};

TEST_F(GitWorktreeForm, ThePlanFeatureTemplateReusesTheUsersBranchAndItsCommandsRunInTheWorktree) {
  repo_->git({"branch", "feature-x"});  // the user's branch, at main's commit
  const fs::path worktree = dir_.path() / "worktrees" / "feature-x";
  write_assignment("implement", R"(vars:
  repo_root: {type: string, required: true}
  worktree_slug: {type: string, required: true}
  worktree_path: {type: string, required: true}
  worktree_base_ref: {type: string, required: true}
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
      with:
        mode: status
        command: /bin/sh
        args: [-c, 'b=$(git rev-parse --abbrev-ref HEAD) && [ "$b" = "$0" ] || { echo "on $b in $PWD" >&2; exit 1; }', "{{worktree_slug}}"]
    - builtin: command
      when: {sessionIndex: [0], attemptIndexInSession: [0]}
      with: {mode: status, command: git, args: [merge, --ff-only, --, "{{worktree_base_ref}}"]}
)");
  auto run = start("implement", {{"repo_root", work_.string()},
                                 {"worktree_slug", "feature-x"},
                                 {"worktree_path", worktree.string()},
                                 {"worktree_base_ref", "main"}});
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(wait_until_settled(run), "success") << json::serialize(get_run(run));
  for (const char* id : {"beforeAttempt-0", "beforeAttempt-1", "beforeAttempt-2"})
    EXPECT_EQ(audit(run, id).at("outcome").as_string(), "ok") << id << ": " << json::serialize(audit(run, id));
  EXPECT_NE(message(run, "beforeAttempt-0").find("on the existing branch feature-x"), std::string::npos);
  EXPECT_EQ(get_run(run).at("cwd").as_string(), canonical(worktree));
  EXPECT_TRUE(fs::exists(worktree / "run-file.txt")) << "the attempt ran in the worktree";
  EXPECT_FALSE(fs::exists(work_ / "run-file.txt"));
  EXPECT_EQ(repo_->git({"rev-parse", "--abbrev-ref", "HEAD"}), "main\n") << "the user's checkout is untouched";

  // Deleting the run removes the worktree it made, never the user's branch, though the
  // branch still points where it did.
  delete_run_and_wait_for(run, worktree);
  EXPECT_FALSE(fs::exists(worktree));
  EXPECT_TRUE(has_branch("feature-x"));
  EXPECT_EQ(repo_->git({"rev-parse", "feature-x"}), first_ + "\n");
}

TEST_F(GitWorktreeForm, APrepareHookMakesANewBranchFromFromAndSetsTheVarWorktreePath) {
  repo_->commit_files({{"second.txt", "2\n"}}, "second");  // main moves on; `from` names the first commit
  write_prepare("fresh", "{repo: '{{cwd}}', from: " + first_ + ", branch: feature/new, path: '{{cwd}}/.worktrees/new'}\n"
                "    - builtin: command\n"
                "      with: {mode: status, command: /bin/sh, args: [-c, '[ \"$PWD\" = \"$0\" ] || "
                "{ echo \"in $PWD\" >&2; exit 1; }', '{{worktree_path}}']}");
  auto run = start("fresh");
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(wait_until_settled(run), "success") << json::serialize(get_run(run).at("hookAudits"));
  const fs::path worktree = work_ / ".worktrees" / "new";
  auto detail = get_run(run);
  EXPECT_EQ(detail.at("vars").at("worktree_path").as_string(), canonical(worktree)) << json::serialize(detail.at("vars"));
  EXPECT_EQ(detail.at("cwd").as_string(), canonical(worktree));
  EXPECT_EQ(audit(run, "prepare-1").at("outcome").as_string(), "ok") << "the next hook ran in the worktree";
  EXPECT_EQ(repo_->git({"rev-parse", "feature/new"}), first_ + "\n");
  EXPECT_TRUE(fs::exists(worktree / "run-file.txt"));
  EXPECT_FALSE(fs::exists(worktree / "second.txt"));

  // Started again after a reset, the run keeps what its first prepare made.
  ASSERT_EQ(client().post_json("/api/runs/" + run + "/reset", json::object{}).status, 200);
  ASSERT_EQ(client().post_json("/api/runs/" + run + "/resume", json::object{}).status, 200);
  EXPECT_EQ(wait_until_settled(run), "success");
  EXPECT_EQ(get_run(run).at("cwd").as_string(), canonical(worktree));
  const auto audits = wait_for_hook_audits(run, "prepare", 4);
  EXPECT_NE(json::serialize(audits).find("kept the run's worktree"), std::string::npos) << json::serialize(audits);

  // Made by the run and unchanged: both go with it.
  delete_run_and_wait_for(run, worktree);
  EXPECT_FALSE(fs::exists(worktree));
  for (int i = 0; i < 200 && has_branch("feature/new"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  EXPECT_FALSE(has_branch("feature/new"));
  EXPECT_EQ(repo_->git({"worktree", "list"}).find(".worktrees/new"), std::string::npos);
}

TEST_F(GitWorktreeForm, EachAttemptFindsTheWorktreeItsRunMadeWhichDeletingTheRunRemoves) {
  // No `when`: the hook runs before both attempts (the task is never done, one retry).
  // The second finds the worktree the first made, from inside it ({{cwd}} moved there).
  const fs::path worktree = dir_.path() / "wt" / "again";
  write_assignment("again", "tasks:\n  - {id: plan, title: Plan}\nmaxRetries: 1\n"
                            "hooks:\n  beforeAttempt:\n    - builtin: git-worktree\n"
                            "      with: {repo: '{{cwd}}', from: main, branch: again, path: " +
                                worktree.string() + ", collision: reuse}\n");
  auto run = start("again");
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(wait_until_settled(run), "exhausted");
  const auto audits = wait_for_hook_audits(run, "beforeAttempt", 2);
  ASSERT_EQ(audits.size(), 2u);
  EXPECT_NE(std::string(audits.at(0).at("message").as_string()).find("created the worktree"), std::string::npos);
  EXPECT_NE(std::string(audits.at(1).at("message").as_string()).find("reused the worktree"), std::string::npos)
      << json::serialize(audits);
  EXPECT_EQ(get_run(run).at("cwd").as_string(), canonical(worktree));

  // Still the run's own: both go with it.
  delete_run_and_wait_for(run, worktree);
  EXPECT_FALSE(fs::exists(worktree));
  for (int i = 0; i < 200 && has_branch("again"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  EXPECT_FALSE(has_branch("again"));
}

TEST_F(GitWorktreeForm, ACollisionFailsOrReplacesAWorktreeButNeverWhatIsNotOne) {
  const fs::path taken = dir_.path() / "taken";
  repo_->git({"worktree", "add", "-q", "-b", "old", taken.string(), "main"});
  { std::ofstream(taken / "scratch.txt") << "the user's\n"; }
  const std::string with = "{repo: '{{cwd}}', from: main, branch: fresh, path: " + taken.string();

  write_prepare("strict", with + "}");
  auto strict = start("strict");
  EXPECT_EQ(wait_until_settled(strict), "error");
  EXPECT_EQ(audit(strict, "prepare-0").at("outcome").as_string(), "failed");
  EXPECT_NE(message(strict, "prepare-0").find("already exists (collision: fail)"), std::string::npos)
      << message(strict, "prepare-0");
  EXPECT_TRUE(fs::exists(taken / "scratch.txt"));
  EXPECT_FALSE(has_branch("fresh"));

  write_prepare("replacing", with + ", collision: replace}");
  auto replacing = start("replacing");
  EXPECT_EQ(wait_until_settled(replacing), "success") << message(replacing, "prepare-0");
  EXPECT_NE(message(replacing, "prepare-0").find("replaced the worktree"), std::string::npos);
  EXPECT_FALSE(fs::exists(taken / "scratch.txt"));
  EXPECT_TRUE(fs::exists(taken / "run-file.txt"));
  EXPECT_EQ(test::GitRepo(taken).git({"rev-parse", "--abbrev-ref", "HEAD"}), "fresh\n");
  EXPECT_TRUE(has_branch("old")) << "the replaced worktree's branch stays";

  // reuse takes only a worktree on the branch asked for.
  write_prepare("elsewhere", "{repo: '{{cwd}}', from: main, branch: other, path: " + taken.string() +
                                 ", collision: reuse}");
  auto elsewhere = start("elsewhere");
  EXPECT_EQ(wait_until_settled(elsewhere), "error");
  EXPECT_NE(message(elsewhere, "prepare-0").find("is a worktree on branch fresh, not on other"), std::string::npos)
      << message(elsewhere, "prepare-0");

  // A directory that is not a worktree of the repository is never removed.
  const fs::path plain = dir_.make_dir("plain");
  { std::ofstream(plain / "keep.txt") << "mine\n"; }
  write_prepare("trampling", "{repo: '{{cwd}}', from: main, branch: b3, path: " + plain.string() +
                                 ", collision: replace}");
  auto trampling = start("trampling");
  EXPECT_EQ(wait_until_settled(trampling), "error");
  EXPECT_NE(message(trampling, "prepare-0").find("is not a worktree of"), std::string::npos)
      << message(trampling, "prepare-0");
  EXPECT_TRUE(fs::exists(plain / "keep.txt"));
}

TEST_F(GitWorktreeForm, ValuesThatCannotBeUsedFailTheHookNamingTheField) {
  const auto failure = [&](const std::string& name, const std::string& with, json::object vars = {},
                           const std::string& more = "") {
    write_prepare(name, with, more);
    auto run = start(name, std::move(vars));
    EXPECT_EQ(wait_until_settled(run), "error") << name;
    EXPECT_EQ(audit(run, "prepare-0").at("outcome").as_string(), "failed") << name;
    EXPECT_EQ(get_run(run).at("cwd").as_string(), canonical(work_)) << name << ": the cwd did not move";
    return message(run, "prepare-0");
  };
  auto bad_ref = failure("badref", "{repo: '{{cwd}}', from: no-such-ref, branch: b1, path: '{{cwd}}/.wt/b1'}");
  EXPECT_NE(bad_ref.find("with.from 'no-such-ref' names no commit"), std::string::npos) << bad_ref;
  EXPECT_FALSE(has_branch("b1"));
  EXPECT_FALSE(fs::exists(work_ / ".wt" / "b1"));

  auto relative = failure("relative", "{repo: '{{cwd}}', from: main, branch: b2, path: '{{where}}'}",
                          {{"where", "relative/dir"}}, "vars:\n  where: {type: string}\n");
  EXPECT_NE(relative.find("with.path must be an absolute path (got 'relative/dir')"), std::string::npos) << relative;

  auto unknown = failure("unknown", "{repo: '{{cwd}}', from: main, branch: b3, path: '{{nowhere}}/x'}");
  EXPECT_NE(unknown.find("unknown template key 'nowhere'"), std::string::npos) << unknown;

  auto branch = failure("badbranch", "{repo: '{{cwd}}', from: main, branch: 'bad..name', path: '{{cwd}}/.wt/b4'}");
  EXPECT_NE(branch.find("with.branch 'bad..name' is not a valid git branch name"), std::string::npos) << branch;

  auto no_repo = failure("norepo", "{repo: " + dir_.make_dir("empty").string() + ", from: main, branch: b5, path: /tmp/x}");
  EXPECT_NE(no_repo.find("is in no git work tree"), std::string::npos) << no_repo;
}

}  // namespace
}  // namespace agentry::integration
