// init/start: definitions resolve into frozen inputs; bad input is refused and leaves no run.
#include "engine/engine.hpp"
#include "engine/lineage.hpp"
#include "events/projections.hpp"

#include "engine_fixture.hpp"

#include <boost/json/serialize.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace agentry::engine::testing {
namespace {

std::size_t run_count(Engine& engine) {
  auto page = engine.list(core::RunQuery{});
  return page.ok() ? page->summaries.size() : 0;
}

TEST_F(EngineTest, InitFreezesRenderedInputsAndTasks) {
  auto run = init_run(feature_request("dark mode"));
  EXPECT_EQ(run.status, core::RunStatus::initialized);
  EXPECT_EQ(run.run_group_id, run.id);
  EXPECT_EQ(run.frozen.backend, "passive");
  EXPECT_EQ(run.frozen.model, "small-model");
  EXPECT_EQ(run.frozen.max_attempts_per_session, 3);
  EXPECT_EQ(run.frozen.message, "Build dark mode (small).");
  EXPECT_EQ(run.frozen.brief, "You are the worker for " + run.id + ".\n\nWork in " + run.cwd +
                                  ".\n\nBuild dark mode (small).");
  EXPECT_EQ(run.frozen.vars.at("size").as_string(), "small");
  EXPECT_EQ(run.frozen.timeout_sec, 3600);  // the agent sets none

  auto tasks = engine_->tasks().list(run.id);
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 2u);
  EXPECT_EQ((*tasks)[0].id, "plan");
  EXPECT_EQ((*tasks)[0].title, "Plan dark mode");
  EXPECT_EQ((*tasks)[1].body, "Keep it small.");

  auto audit = engine_->audit(run.id, {});
  ASSERT_TRUE(audit.ok());
  ASSERT_EQ(audit->size(), 1u);
  EXPECT_EQ((*audit)[0].type, "run.initialized");
  EXPECT_EQ((*audit)[0].actor, "test");
}

// init_view answers with the rows it wrote instead of reading them back: the same run
// detail as a read of the new run.
TEST_F(EngineTest, InitViewIsWhatAReadOfTheNewRunShows) {
  Actor actor{"test"};
  auto request = feature_request("dark mode");
  request.name = "Dark mode";
  auto created = engine_->init_view(request, actor);
  ASSERT_TRUE(created.ok()) << created.error().message;
  auto read = engine_->view(created->run.id);
  ASSERT_TRUE(read.ok());
  auto detail = [](const RunView& v) {
    return boost::json::serialize(events::run_detail({v.run, v.tasks, v.sessions, v.attempts}));
  };
  EXPECT_EQ(detail(*created), detail(*read));
  EXPECT_EQ(created->tasks.size(), 2u);
}

TEST_F(EngineTest, InitFindsTheEnclosingRepository) {
  std::filesystem::create_directories(work_dir_ / ".git");
  std::filesystem::create_directories(work_dir_ / "sub");
  auto request = feature_request();
  request.caller_cwd = (work_dir_ / "sub").string();
  auto run = init_run(request);
  EXPECT_EQ(run.repo_root, std::filesystem::canonical(work_dir_).string());
}

TEST_F(EngineTest, BadInputIsRefusedAndCreatesNothing) {
  struct Case {
    const char* what;
    std::function<void(InitRequest&)> change;
    core::ErrorCode expected;
  };
  std::vector<Case> cases = {
      {"unknown agent", [](InitRequest& r) { r.agent = "nobody"; }, core::ErrorCode::not_found},
      {"unknown assignment", [](InitRequest& r) { r.assignment = "nothing"; }, core::ErrorCode::not_found},
      {"missing required var", [](InitRequest& r) { r.cli_vars.erase("feature"); }, core::ErrorCode::validation},
      {"enum value not allowed", [](InitRequest& r) { r.cli_vars["size"] = "huge"; }, core::ErrorCode::validation},
      {"unknown var", [](InitRequest& r) { r.cli_vars["colour"] = "red"; }, core::ErrorCode::validation},
      {"locked model", [](InitRequest& r) { r.overrides.model = "big"; }, core::ErrorCode::conflict},
      {"missing cwd", [this](InitRequest& r) { r.caller_cwd = (work_dir_ / "missing").string(); },
       core::ErrorCode::validation},
      {"unavailable backend", [](InitRequest& r) { r.agent = "remote"; }, core::ErrorCode::validation},
      {"missing parent", [](InitRequest& r) { r.parent_run_id = "nosuchrun0"; }, core::ErrorCode::validation},
      {"nothing to do", [](InitRequest& r) { r.assignment.reset(); r.cli_vars.clear(); }, core::ErrorCode::validation},
  };
  for (auto& c : cases) {
    auto request = feature_request();
    c.change(request);
    auto run = engine_->init(request, actor_);
    ASSERT_FALSE(run.ok()) << c.what;
    EXPECT_EQ(run.error().code, c.expected) << c.what << ": " << run.error().message;
    EXPECT_FALSE(run.error().message.empty()) << c.what;
  }
  EXPECT_EQ(run_count(*engine_), 0u);
}

TEST_F(EngineTest, LockedMessageRefusesOverride) {
  InitRequest r;
  r.agent = "worker";
  r.assignment = "locked";
  r.caller_cwd = work_dir_.string();
  r.overrides.message = "something else";
  auto run = engine_->init(r, actor_);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, core::ErrorCode::conflict);
}

TEST_F(EngineTest, AgentAndMessageWithoutAssignment) {
  InitRequest r;
  r.agent = "worker";
  r.caller_cwd = work_dir_.string();
  r.overrides.message = "Just do {{cwd}}";
  auto run = init_run(r);
  EXPECT_EQ(run.frozen.message, "Just do " + run.cwd);
  EXPECT_TRUE(run.frozen.assignment_name.empty());
}

TEST_F(EngineTest, ChildRunInheritsParentVarsAndGroup) {
  auto parent = init_run(feature_request("search"));
  auto request = feature_request();
  request.cli_vars.erase("feature");
  request.parent_run_id = parent.id;
  request.run_group_id = "wave-1";
  auto child = init_run(request);
  EXPECT_EQ(child.frozen.vars.at("feature").as_string(), "search");
  EXPECT_EQ(child.parent_run_id, parent.id);
  EXPECT_EQ(child.run_group_id, "wave-1");
}

TEST_F(EngineTest, AChildJoinsItsParentsGroupAndNotifiesItUnlessItOptsOut) {
  auto parent = init_run(feature_request("search"));
  EXPECT_FALSE(parent.frozen.notify_parent_on_complete) << "nobody to notify";
  auto request = feature_request();
  request.parent_run_id = parent.id;
  auto child = init_run(request);
  EXPECT_EQ(child.run_group_id, parent.run_group_id);
  EXPECT_TRUE(child.frozen.notify_parent_on_complete);

  request.inherit_run_group = false;
  request.notify_parent_on_complete = false;
  auto quiet = init_run(request);
  EXPECT_EQ(quiet.run_group_id, quiet.id);
  EXPECT_FALSE(quiet.frozen.notify_parent_on_complete);

  // A grandchild joins the group its parent joined.
  request = feature_request();
  request.parent_run_id = child.id;
  EXPECT_EQ(init_run(request).run_group_id, parent.run_group_id);
}

TEST_F(EngineTest, AnAssignmentsCwdIsRenderedWithTheRunsVars) {
  std::filesystem::create_directories(work_dir_ / "repo");
  write_config("assignments/inrepo/assignment.md", R"(---
schemaVersion: 1
cwd: "{{repo_root}}"
message: "Work in {{cwd}}"
vars:
  repo_root: {type: string, required: true}
---
Go.
)");
  InitRequest r;
  r.agent = "worker";
  r.assignment = "inrepo";
  r.caller_cwd = work_dir_.string();
  r.cli_vars = {{"repo_root", (work_dir_ / "repo").string()}};
  auto run = init_run(r);
  EXPECT_EQ(run.cwd, std::filesystem::canonical(work_dir_ / "repo").string());
  EXPECT_EQ(run.frozen.message, "Work in " + run.cwd);

  // A key the run has no value for names it, rather than looking for a directory "{{...}}".
  write_config("assignments/nowhere/assignment.md", "---\nschemaVersion: 1\ncwd: \"{{repo_rot}}\"\nmessage: go\n---\nGo.\n");
  r.assignment = "nowhere";
  r.cli_vars = {};
  auto refused = engine_->init(r, actor_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, core::ErrorCode::validation);
  EXPECT_NE(refused.error().message.find("{{repo_rot}}"), std::string::npos) << refused.error().message;
  EXPECT_EQ(refused.error().details.at("field"), "cwd");
}

TEST_F(EngineTest, AgentRunnerCmdIsAKnownTemplateKey) {
  InitRequest r;
  r.agent = "worker";
  r.caller_cwd = work_dir_.string();
  r.overrides.message = "Report with {{agent_runner_cmd}} task set";
  auto run = init_run(r);
  // The fixture's engine knows no agentry binary: the name agents find on their PATH.
  EXPECT_EQ(run.frozen.message, "Report with agent-runner task set");
  auto audit = engine_->audit(run.id, {});
  ASSERT_TRUE(audit.ok());
  EXPECT_FALSE((*audit)[0].data.contains("unknownTemplateKeys"));
}

TEST(AgentRunnerCommand, TheLinkBesideTheBinaryElseTheBinaryWithItsSubcommand) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("agent-runner-cmd-" + std::to_string(::getpid()));
  fs::create_directories(dir / "bin");
  const fs::path binary = dir / "bin" / "agentry";
  { std::ofstream(binary) << "#!/bin/sh\n"; }
  EXPECT_EQ(agent_runner_link(binary), fs::path());
  EXPECT_EQ(agent_runner_command(binary), binary.string() + " agent-runner");
  EXPECT_EQ(agent_runner_command({}), "agent-runner");
  fs::create_symlink("agentry", dir / "bin" / "agent-runner");
  EXPECT_EQ(agent_runner_link(binary), dir / "bin" / "agent-runner");
  EXPECT_EQ(agent_runner_command(binary), (dir / "bin" / "agent-runner").string());
  fs::remove_all(dir);
}

TEST_F(EngineTest, UnknownTemplateKeysAreLeftAsWrittenAndAudited) {
  write_config("assignments/typo/assignment.md", R"(---
schemaVersion: 1
message: "Fix {{isue}} in {{cwd}}"
tasks:
  - {id: t1, title: "Check {{ branch }}"}
---
CI needs ${{ secrets.TOKEN }}.
)");
  auto request = feature_request();
  request.assignment = "typo";
  request.cli_vars = {};
  auto run = init_run(request);
  EXPECT_EQ(run.frozen.message, "Fix {{isue}} in " + run.cwd);
  EXPECT_NE(run.frozen.brief.find("CI needs ${{ secrets.TOKEN }}."), std::string::npos) << run.frozen.brief;
  auto tasks = engine_->tasks().list(run.id);
  ASSERT_TRUE(tasks.ok());
  EXPECT_EQ((*tasks)[0].title, "Check {{ branch }}");

  auto audit = engine_->audit(run.id, {});
  ASSERT_TRUE(audit.ok());
  ASSERT_EQ(audit->size(), 1u);
  const auto& keys = (*audit)[0].data.at("unknownTemplateKeys").as_array();
  ASSERT_EQ(keys.size(), 3u) << boost::json::serialize((*audit)[0].data);
  EXPECT_EQ(keys[0].at("key").as_string(), "branch");
  EXPECT_EQ(keys[0].at("in").as_string(), "tasks.t1.title");
  EXPECT_EQ(keys[1].at("key").as_string(), "secrets.TOKEN");
  EXPECT_EQ(keys[1].at("in").as_string(), "assignmentInstructions");
  EXPECT_EQ(keys[2].at("key").as_string(), "isue");
  EXPECT_EQ(keys[2].at("in").as_string(), "message");

  // A run whose texts fill every placeholder says nothing about it.
  auto clean = init_run(feature_request());
  auto clean_audit = engine_->audit(clean.id, {});
  ASSERT_TRUE(clean_audit.ok());
  EXPECT_FALSE((*clean_audit)[0].data.contains("unknownTemplateKeys"));
}

TEST_F(EngineTest, RunsNestAtMostMaxCallDepthDeep) {
  max_call_depth_ = 3;
  restart();
  auto request = feature_request();
  std::string parent;
  std::vector<std::string> chain;
  for (int depth = 1; depth <= 3; ++depth) {
    if (!parent.empty()) request.parent_run_id = parent;
    parent = init_run(request).id;
    chain.push_back(parent);
  }
  const std::size_t before = run_count(*engine_);
  request.parent_run_id = parent;
  for (bool start : {false, true}) {
    auto refused = start ? engine_->start(request, actor_) : engine_->init(request, actor_);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, core::ErrorCode::validation);
    EXPECT_NE(refused.error().message.find("nested 4 deep"), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find("AGENTRY_MAX_CALL_DEPTH"), std::string::npos);
    EXPECT_EQ(refused.error().details.at("field").as_string(), "parentRunId");
    EXPECT_EQ(refused.error().details.at("maxCallDepth").as_int64(), 3);
  }
  EXPECT_EQ(run_count(*engine_), before);  // nothing was written

  // A sibling of the deepest run is fine, and so is a new lineage.
  request.parent_run_id = chain[1];
  EXPECT_TRUE(engine_->init(request, actor_).ok());
  request.parent_run_id.reset();
  EXPECT_TRUE(engine_->init(request, actor_).ok());

  // The limit is read when the engine starts.
  max_call_depth_ = 4;
  restart();
  request.parent_run_id = parent;
  EXPECT_TRUE(engine_->init(request, actor_).ok());
}

TEST_F(EngineTest, VarsRememberWhereTheyCameFromAndEnvValuesAreRedacted) {
  write_config("assignments/deploy/assignment.md", R"(---
schemaVersion: 1
vars:
  token:
    sources: [env]
    envName: AGENTRY_TEST_DEPLOY_TOKEN
  target:
    required: true
  region:
    default: eu
---
Deploy {{target}} to {{region}} with {{token}}.
)");
  write_config("assignments/child/assignment.md", R"(---
schemaVersion: 1
vars:
  token:
    sources: [parent]
  target:
    sources: [parent, cli]
---
Child of {{target}} with {{token}}.
)");
  ::setenv("AGENTRY_TEST_DEPLOY_TOKEN", "tok-0123456789", 1);
  auto request = feature_request();
  request.assignment = "deploy";
  request.cli_vars = {{"target", "prod"}};
  auto parent = init_run(request);
  ::unsetenv("AGENTRY_TEST_DEPLOY_TOKEN");
  EXPECT_EQ(parent.frozen.vars.at("token"), "tok-0123456789");  // what the agent gets
  EXPECT_NE(parent.frozen.brief.find("with tok-0123456789."), std::string::npos);
  EXPECT_EQ(boost::json::serialize(parent.frozen.var_sources),
            R"({"token":{"source":"env","envName":"AGENTRY_TEST_DEPLOY_TOKEN","redacted":true},)"
            R"("target":{"source":"web"},"region":{"source":"default"}})");  // the request default is web

  request.assignment = "child";
  request.cli_vars = {};
  request.parent_run_id = parent.id;
  auto child = init_run(request);
  EXPECT_EQ(child.frozen.vars.at("token"), "tok-0123456789");
  EXPECT_EQ(boost::json::serialize(child.frozen.var_sources.at("token")),
            R"({"source":"parent","inheritedFromRunId":")" + parent.id +
                R"(","redacted":true,"envName":"AGENTRY_TEST_DEPLOY_TOKEN"})");
  EXPECT_FALSE(child.frozen.var_sources.at("target").as_object().contains("redacted"));

  // Stored as is; the projection is what hides it.
  auto view = engine_->view(child.id);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->run.frozen.vars.at("token"), "tok-0123456789");
}

TEST_F(EngineTest, StartOpensTheFirstSessionWithTheBrief) {
  auto run = start_run(feature_request());
  EXPECT_EQ(run.status, core::RunStatus::running);
  EXPECT_EQ(run.session_count, 1);
  auto view = engine_->view(run.id);
  ASSERT_TRUE(view.ok());
  ASSERT_EQ(view->sessions.size(), 1u);
  EXPECT_EQ(view->sessions[0].status, "running");
  // The brief, with the task section between the instructions and the message.
  const std::string& prompt = view->sessions[0].prompt;
  EXPECT_EQ(prompt.rfind(run.frozen.agent_instructions, 0), 0u) << prompt;
  EXPECT_NE(prompt.find("## Tasks"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find(run.frozen.message), std::string::npos) << prompt;
  EXPECT_TRUE(view->run.started_at.has_value());
}

}  // namespace
}  // namespace agentry::engine::testing
