// GET /api/runs/:id/workspace/refs over the real daemon, against a real git repository
// made in a temp dir: the branches, remote-tracking branches and tags a reviewer can
// compare, HEAD (on a branch, detached, unborn), agentry's private refs left out, and
// the errors of a cwd outside git and of an agent's own token.
#include "daemon_fixture.hpp"
#include "support/git_repo.hpp"
#include "support/ws_client.hpp"

#include <filesystem>

namespace agentry::integration {
namespace {
namespace fs = std::filesystem;
namespace json = boost::json;

std::vector<std::string> names_of(const json::value& list) {
  std::vector<std::string> out;
  for (const auto& r : list.as_array()) out.emplace_back(r.at("name").as_string());
  return out;
}

class WorkspaceRefsTest : public DaemonTest {
 protected:
  test::HttpResponse refs(const std::string& run_id) { return client().get("/api/runs/" + run_id + "/workspace/refs"); }
};

TEST_F(WorkspaceRefsTest, ListsBranchesRemotesAndTagsWithTheirCommits) {
  test::GitRepo repo(work_);
  const std::string first = repo.commit_files({{"a.txt", "a\n"}}, "first");
  repo.git({"tag", "v1.0"});
  repo.git({"tag", "-a", "v1.1", "-m", "annotated"});
  repo.git({"checkout", "-q", "-b", "feature"});
  const std::string second = repo.commit_files({{"b.txt", "b\n"}}, "second");
  repo.git({"update-ref", "refs/remotes/origin/main", first});
  repo.git({"symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main"});
  repo.git({"update-ref", "refs/agentry/runs/someone/base", first});  // private: never listed

  auto id = create_run();
  auto answer = refs(id);
  ASSERT_EQ(answer.status, 200) << answer.body;
  const auto body = answer.json();
  EXPECT_EQ(body.at("runId").as_string(), id);
  EXPECT_EQ(fs::path(std::string(body.at("repoRoot").as_string())), fs::canonical(work_));
  EXPECT_EQ(body.at("head").at("branch").as_string(), "feature");
  EXPECT_EQ(body.at("head").at("commit").as_string(), second);
  EXPECT_EQ(names_of(body.at("branches")), (std::vector<std::string>{"feature", "main"}));
  EXPECT_EQ(body.at("branches").at(1).at("commit").as_string(), first);
  EXPECT_EQ(names_of(body.at("remotes")), (std::vector<std::string>{"origin/main"}));
  EXPECT_EQ(names_of(body.at("tags")), (std::vector<std::string>{"v1.0", "v1.1"}));
  EXPECT_EQ(body.at("tags").at(1).at("commit").as_string(), first);  // the annotated tag, peeled
  EXPECT_FALSE(body.at("truncated").as_bool());
  EXPECT_EQ(answer.body.find("agentry/runs"), std::string::npos) << answer.body;

  // Every listed name is one the diff route resolves.
  auto diff = client().get("/api/runs/" + id + "/workspace/diff?mode=branch&base=v1.1&head=origin/main&comparison=direct");
  EXPECT_EQ(diff.status, 200) << diff.body;

  // WebSocket callers get the same answer.
  test::WsClient ws("127.0.0.1", daemon_->port());
  auto over_ws = ws.call("workspace.refs", json::object{{"runId", id}});
  ASSERT_TRUE(over_ws.contains("result")) << json::serialize(over_ws);
  EXPECT_EQ(json::serialize(over_ws.at("result")), json::serialize(body));
}

TEST_F(WorkspaceRefsTest, DetachedAndUnbornHeads) {
  test::GitRepo repo(work_);
  const std::string first = repo.commit_files({{"a.txt", "a\n"}}, "first");
  repo.git({"checkout", "-q", "--detach", first});
  auto id = create_run();
  auto detached = refs(id);
  ASSERT_EQ(detached.status, 200) << detached.body;
  EXPECT_TRUE(detached.json().at("head").at("branch").is_null());
  EXPECT_EQ(detached.json().at("head").at("commit").as_string(), first);

  test::GitRepo empty(work_ / "fresh", "trunk");
  json::object body{{"agent", "worker"}, {"assignment", "feature"}, {"callerCwd", (work_ / "fresh").string()},
                    {"cliVars", {{"feature", "fresh"}}}};
  auto created = client().post_json("/api/runs/init", body);
  ASSERT_EQ(created.status, 201) << created.body;
  auto unborn = refs(std::string(created.json().at("runId").as_string()));
  ASSERT_EQ(unborn.status, 200) << unborn.body;
  EXPECT_EQ(unborn.json().at("head").at("branch").as_string(), "trunk");
  EXPECT_TRUE(unborn.json().at("head").at("commit").is_null());
  EXPECT_TRUE(unborn.json().at("branches").as_array().empty());
}

TEST_F(WorkspaceRefsTest, ACwdOutsideGitAndAnUnknownRunAreClearErrors) {
  auto id = create_run();  // work_ is not a repository here
  auto outside = refs(id);
  EXPECT_EQ(outside.status, 422) << outside.body;
  EXPECT_EQ(outside.json().at("error").at("details").at("reason").as_string(), "not_a_git_work_tree");
  auto unknown = refs("r-no-such-run");
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  EXPECT_EQ(unknown.json().at("error").at("code").as_string(), "NOT_FOUND");
  EXPECT_EQ(client().get("/api/runs/" + id + "/workspace/refs?all=1").status, 400);
}

}  // namespace
}  // namespace agentry::integration
