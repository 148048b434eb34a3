// agent-runner's workspace, definition, audit and daemon DTOs translated from what our
// own functions answer on real files (a git work tree, a config directory), each checked
// against the hand-written schema checkers.

#include "compat_fixture.hpp"

#include "core/clock.hpp"
#include "definitions/json.hpp"
#include "definitions/loader.hpp"
#include "events/projections.hpp"
#include "workspace/confinement.hpp"
#include "workspace/diff.hpp"
#include "workspace/files.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace agentry::api::compat::testing {
namespace {
namespace json = boost::json;

void sh(const std::string& command) { ASSERT_EQ(std::system(command.c_str()), 0) << command; }

class CompatPartsTest : public CompatDtoTest {
 protected:
  /// A git work tree with a commit on main and one on the branch "topic", then a change
  /// in the work tree and an untracked file.
  std::filesystem::path make_repo() {
    const auto repo = work_dir_ / "repo";
    std::filesystem::create_directories(repo / "docs");
    const std::string git = "git -C '" + repo.string() + "' -c user.email=t@example.com -c user.name=t ";
    sh(git + "init -q -b main");
    std::ofstream(repo / "README.md") << "# Readme\n";
    std::ofstream(repo / "docs" / "guide.txt") << "one\ntwo\n";
    sh(git + "add -A && " + git + "commit -q -m first");
    sh(git + "checkout -q -b topic");
    std::ofstream(repo / "docs" / "guide.txt") << "one\ntwo\nthree\n";
    sh(git + "commit -q -am second");
    std::ofstream(repo / "README.md") << "# Readme\nmore\n";
    std::ofstream(repo / "new.md") << "fresh\n";
    return repo;
  }

  WorkspaceFacts workspace_facts(const std::filesystem::path& cwd) {
    WorkspaceFacts f;
    f.cwd = cwd.string();
    f.max_entries = static_cast<std::int64_t>(limits_.max_list_entries);
    f.max_results = static_cast<std::int64_t>(limits_.max_search_results);
    f.max_file_bytes = static_cast<std::int64_t>(limits_.max_preview_bytes);
    f.max_diff_bytes = static_cast<std::int64_t>(limits_.max_patch_bytes);
    return f;
  }

  workspace::Limits limits_;
};

TEST_F(CompatPartsTest, WorkspaceDirectorySearchAndFile) {
  const auto repo = make_repo();
  auto root = workspace::Root::open(repo);
  ASSERT_TRUE(root) << root.error().message;
  const auto facts = workspace_facts(root->path());

  auto listing = workspace::list_directory(*root, "", limits_);
  ASSERT_TRUE(listing);
  auto native = workspace::to_json(*listing);
  native["runId"] = "run_1";
  const auto directory = ref_workspace_directory(native, facts);
  EXPECT_TRUE(check_workspace_directory(directory).empty()) << describe(check_workspace_directory(directory));
  EXPECT_EQ(directory.at("path").as_string(), "");
  EXPECT_TRUE(directory.at("parentPath").is_null()) << "the root has no parent";
  bool saw_docs = false, saw_readme = false;
  for (const auto& e : directory.at("entries").as_array()) {
    if (e.at("name") == "docs") {
      saw_docs = true;
      EXPECT_EQ(e.at("kind").as_string(), "directory");
      EXPECT_TRUE(e.at("size").is_null());
      EXPECT_FALSE(e.at("supportedText").as_bool());
    }
    if (e.at("name") == "README.md") {
      saw_readme = true;
      EXPECT_EQ(e.at("kind").as_string(), "file");
      EXPECT_TRUE(e.at("markdown").as_bool());
      EXPECT_TRUE(e.at("supportedText").as_bool());
      EXPECT_GT(e.at("mtimeMs").to_number<double>(), 0.0);
    }
  }
  EXPECT_TRUE(saw_docs && saw_readme);

  auto sub = workspace::list_directory(*root, "docs", limits_);
  ASSERT_TRUE(sub);
  auto sub_native = workspace::to_json(*sub);
  sub_native["runId"] = "run_1";
  const auto docs = ref_workspace_directory(sub_native, facts);
  EXPECT_TRUE(check_workspace_directory(docs).empty()) << describe(check_workspace_directory(docs));
  EXPECT_EQ(docs.at("parentPath").as_string(), "");

  auto found = workspace::search_paths(*root, "guide", 10, limits_);
  ASSERT_TRUE(found);
  auto found_native = workspace::to_json(*found);
  found_native["runId"] = "run_1";
  const auto search = ref_workspace_search(found_native, facts);
  EXPECT_TRUE(check_workspace_search(search).empty()) << describe(check_workspace_search(search));
  ASSERT_EQ(search.at("matches").as_array().size(), 1u);
  EXPECT_EQ(search.at("matches").as_array()[0].at("path").as_string(), "docs/guide.txt");
  EXPECT_EQ(search.at("query").as_string(), "guide");

  for (const char* path : {"README.md", "docs/guide.txt"}) {
    auto preview = workspace::preview_file(*root, path, limits_);
    ASSERT_TRUE(preview);
    auto preview_native = workspace::to_json(*preview);
    preview_native["runId"] = "run_1";
    const auto file = ref_workspace_file(preview_native, facts);
    EXPECT_TRUE(check_workspace_file(file).empty()) << describe(check_workspace_file(file));
    const bool markdown = std::string(path) == "README.md";
    EXPECT_EQ(file.at("mediaType").as_string(), markdown ? "text/markdown" : "text/plain");
    EXPECT_EQ(file.at("markdown").as_bool(), markdown);
    EXPECT_EQ(file.at("text").as_string(), markdown ? "# Readme\nmore\n" : "one\ntwo\nthree\n");
    EXPECT_EQ(file.at("name").as_string(), markdown ? "README.md" : "guide.txt");
  }
}

TEST_F(CompatPartsTest, WorkspaceDiffsWorkingTreeAndBranch) {
  const auto repo = make_repo();
  const auto facts = workspace_facts(repo);

  auto working = workspace::diff_workspace(repo, workspace::DiffRequest{}, limits_);
  ASSERT_TRUE(working) << working.error().message;
  auto working_native = workspace::to_json(*working);
  working_native["runId"] = "run_1";
  const auto tree = ref_workspace_diff(working_native, facts);
  EXPECT_TRUE(check_workspace_diff(tree).empty()) << describe(check_workspace_diff(tree));
  EXPECT_EQ(tree.at("mode").as_string(), "working-tree");
  EXPECT_EQ(tree.at("displayRange").as_string(), "Working tree");
  EXPECT_TRUE(tree.at("baseRef").is_null());
  EXPECT_TRUE(tree.at("comparison").is_null());
  std::map<std::string, std::string> statuses;
  for (const auto& f : tree.at("files").as_array()) {
    statuses[std::string(f.at("path").as_string())] = std::string(f.at("status").as_string());
    EXPECT_FALSE(f.as_object().contains("oldPath")) << "absent unless renamed or copied";
  }
  EXPECT_EQ(statuses["README.md"], "modified");
  EXPECT_EQ(statuses["new.md"], "untracked");
  EXPECT_EQ(tree.at("stats").at("files").as_int64(), 2);

  for (bool merge_base : {true, false}) {
    workspace::DiffRequest request;
    request.mode = workspace::DiffMode::branch;
    request.base = "main";
    request.head = "topic";
    request.merge_base = merge_base;
    auto branch = workspace::diff_workspace(repo, request, limits_);
    ASSERT_TRUE(branch) << branch.error().message;
    auto native = workspace::to_json(*branch);
    native["runId"] = "run_1";
    const auto diff = ref_workspace_diff(native, facts);
    EXPECT_TRUE(check_workspace_diff(diff).empty()) << describe(check_workspace_diff(diff));
    EXPECT_EQ(diff.at("mode").as_string(), "branch");
    EXPECT_EQ(diff.at("baseRef").as_string(), "main");
    EXPECT_EQ(diff.at("headRef").as_string(), "topic");
    EXPECT_EQ(diff.at("comparison").as_string(), merge_base ? "merge-base" : "direct");
    EXPECT_EQ(diff.at("displayRange").as_string(), merge_base ? "main...topic" : "main..topic");
    ASSERT_EQ(diff.at("files").as_array().size(), 1u);
    EXPECT_EQ(diff.at("files").as_array()[0].at("additions").as_int64(), 1);
    EXPECT_EQ(diff.at("stats"), (json::object{{"files", 1}, {"additions", 1}, {"deletions", 0}}));
    EXPECT_FALSE(diff.at("patch").as_string().empty());
  }
}

TEST_F(CompatPartsTest, DefinitionListsAndDetails) {
  write_config("launchers/nice.yaml", "schemaVersion: 1\ncommand: [nice, -n, \"10\"]\nenv: {A: b}\n");
  write_config("launchers/broken.yaml", "schemaVersion: 1\n");
  definitions::Roots roots;
  roots.config_dir = config_dir_;

  const auto agents = ref_definition_list(definitions::to_json(definitions::list_agents(roots)));
  EXPECT_TRUE(check_definition_list(agents).empty()) << describe(check_definition_list(agents));
  EXPECT_EQ(agents.at("kind").as_string(), "agent");
  for (const auto& e : agents.at("entries").as_array()) EXPECT_EQ(e.at("root").as_string(), "config");

  const auto launchers = ref_definition_list(definitions::to_json(definitions::list_launchers(roots)));
  EXPECT_TRUE(check_definition_list(launchers).empty()) << describe(check_definition_list(launchers));
  const auto& first = launchers.at("entries").as_array().at(0);
  EXPECT_EQ(first, (json::object{{"name", "direct"}, {"path", nullptr}, {"root", "builtin"}}));
  ASSERT_FALSE(launchers.at("warnings").as_array().empty()) << "the broken launcher is a warning";
  EXPECT_NE(launchers.at("warnings").as_array()[0].as_string().find("broken.yaml"), std::string::npos);

  const auto tasks = ref_definition_list(definitions::to_json(definitions::list_task_definitions(roots)));
  EXPECT_TRUE(check_definition_list(tasks).empty()) << describe(check_definition_list(tasks));
  const auto assignments = ref_definition_list(definitions::to_json(definitions::list_assignments(roots)));
  EXPECT_TRUE(check_definition_list(assignments).empty()) << describe(check_definition_list(assignments));

  for (const char* name : {"worker", "remote", "gated", "talker", "failer"}) {
    auto agent = definitions::load_agent(roots, name);
    ASSERT_TRUE(agent) << name;
    const auto detail = ref_definition_detail(definitions::to_detail_json(*agent));
    EXPECT_TRUE(check_definition_detail(detail).empty()) << name << "\n" << describe(check_definition_detail(detail));
  }
  const auto worker_native = definitions::to_detail_json(*definitions::load_agent(roots, "worker"));
  const auto worker = ref_definition_detail(worker_native);
  EXPECT_EQ(worker.at("config").at("lockedFields"), (json::array{"model"}));
  EXPECT_EQ(worker.at("config").at("model").as_string(), "small-model");
  EXPECT_EQ(worker.at("config").at("backend").as_string(), "passive");
  EXPECT_EQ(worker.at("instructions"), worker_native.at("agent").at("instructions"));
  EXPECT_NE(worker.at("instructions").as_string().find("You are the worker"), std::string::npos);

  for (const char* name : {"feature", "locked", "hooked"}) {
    auto assignment = definitions::load_assignment(roots, name);
    ASSERT_TRUE(assignment) << name << ": " << assignment.error().message;
    const auto detail = ref_definition_detail(definitions::to_detail_json(*assignment));
    EXPECT_TRUE(check_definition_detail(detail).empty()) << name << "\n" << describe(check_definition_detail(detail));
  }
  const auto hooked = ref_definition_detail(definitions::to_detail_json(*definitions::load_assignment(roots, "hooked")));
  const auto& hooks = hooked.at("config").at("hooks").as_object();
  EXPECT_EQ(hooks.at("afterExit"),
            (json::array{json::object{{"builtin", "command"}, {"with", json::object{{"argv", json::array{"sh", "-c", "exit 0"}}}}}}));
  EXPECT_EQ(hooks.at("beforeAttempt").as_array().at(0).at("when"), (json::object{{"sessionIndex", json::array{0}}}));
  EXPECT_TRUE(hooks.at("prepare").as_array().empty());
  EXPECT_TRUE(hooks.at("taskTransition").as_array().empty()) << "the review task's hook stays on its task";
  EXPECT_EQ(hooked.at("config").at("lockedFields"), (json::array{"message"}));
  const auto& review = hooked.at("config").at("tasks").as_array().at(1);
  EXPECT_EQ(review.at("id").as_string(), "review");
  EXPECT_EQ(review.at("hooks").as_array().at(0).at("when"), (json::object{{"toStatus", json::array{"completed"}}}));
  const auto feature = ref_definition_detail(definitions::to_detail_json(*definitions::load_assignment(roots, "feature")));
  const auto& vars = feature.at("config").at("vars").as_object();
  EXPECT_FALSE(vars.at("feature").as_object().contains("env")) << "ours, refused by their strict var schema";
  EXPECT_EQ(vars.at("size").at("values"), (json::array{"small", "large"}));

  auto nice = definitions::load_launcher(roots, "nice");
  ASSERT_TRUE(nice);
  const auto launcher = ref_definition_detail(definitions::to_detail_json(*nice));
  EXPECT_TRUE(check_definition_detail(launcher).empty()) << describe(check_definition_detail(launcher));
  EXPECT_EQ(launcher.at("definition").at("command").as_string(), "nice");
  EXPECT_EQ(launcher.at("definition").at("args"), (json::array{"-n", "10"}));
  EXPECT_TRUE(check_definition_detail(ref_direct_launcher_detail()).empty());

  auto task = definitions::load_task_definition(roots, "review");
  ASSERT_TRUE(task);
  const auto task_detail = ref_definition_detail(definitions::to_detail_json(*task));
  EXPECT_TRUE(check_definition_detail(task_detail).empty()) << describe(check_definition_detail(task_detail));
  EXPECT_EQ(task_detail.at("task").at("title").as_string(), "Review the change");
}

TEST_F(CompatPartsTest, AuditRecordsKeepTheirCursorAndTakeTheirNames) {
  auto run = start_run(feature_request());
  ASSERT_TRUE(engine_->queue_message(run.id, "later", actor_));
  ASSERT_TRUE(engine_->set_group(run.id, std::string("group-b"), engine::Actor{"cli"}));
  set_task(run.id, "plan", "completed");
  std::map<std::string, json::object> by_type;
  std::int64_t expected_cursor = 0;
  for (const auto& e : audit_of(run.id)) {
    const auto record = events::audit_event_json(e);
    const auto envelope = ref_audit_envelope(record, facts_);
    EXPECT_EQ(envelope.at("cursor").as_int64(), ++expected_cursor) << "contiguous, ours unchanged";
    by_type[std::string(envelope.at("event").at("type").as_string())] = envelope.at("event").as_object();
    EXPECT_EQ(envelope.at("event").at("fields"), record.at("data"));
    EXPECT_EQ(envelope.at("event").at("recordedAt"), record.at("at"));
  }
  for (const char* theirs : {"run.created", "run.queued_resume_message_added", "run.group_changed", "task.updated"})
    EXPECT_TRUE(by_type.count(theirs)) << theirs;
  EXPECT_FALSE(by_type.count("run.initialized"));
  EXPECT_EQ(by_type["run.group_changed"].at("source").as_string(), "cli");
  EXPECT_EQ(by_type["task.updated"].at("source").as_string(), "task_command") << "set by the agent";
  EXPECT_EQ(by_type["run.created"].at("controllerInstanceId").as_string(), "daemon-compat-test");

  EXPECT_EQ(ref_audit_type("schedule.fired"), "run.schedule_due");
  EXPECT_EQ(ref_audit_type("parent_notification.delivered"), "run.parent_completion_notification_delivered");
  EXPECT_EQ(ref_audit_type("run.backend_session_cleared"), "run.backend_session_updated");
  EXPECT_EQ(ref_audit_type("task.notes_appended"), "task.updated");
  EXPECT_EQ(ref_audit_type("run.asked"), "run.asked") << "ours without a counterpart pass unchanged";
  EXPECT_EQ(ref_audit_source("schedule"), "daemon");
  EXPECT_EQ(ref_audit_source("engine"), "system");
  EXPECT_EQ(ref_audit_source("hook"), "system");
  EXPECT_EQ(ref_audit_source("ws"), "cli");

  // Session and attempt numbers are lifted out of the data when they are counts.
  const auto lifted = ref_audit_event(
      json::object{{"runId", "r"}, {"cursor", 3}, {"type", "run.finished"}, {"actor", "engine"}, {"at", "2026-01-01T00:00:00.000Z"},
                   {"data", json::object{{"sessionIndex", 1}, {"attemptNumber", 4}, {"status", "success"}}}},
      facts_);
  EXPECT_TRUE(check_audit_event(lifted).empty()) << describe(check_audit_event(lifted));
  EXPECT_EQ(lifted.at("sessionIndex").as_int64(), 1);
  EXPECT_EQ(lifted.at("attemptNumber").as_int64(), 4);
  const auto plain = ref_audit_event(json::object{{"type", "run.renamed"}, {"actor", "api"}, {"at", "x"},
                                                  {"data", json::object{{"sessionIndex", "one"}}}},
                                     facts_);
  EXPECT_FALSE(plain.contains("sessionIndex")) << "absent, never null or a string";
  EXPECT_FALSE(plain.contains("attemptNumber"));
}

TEST_F(CompatPartsTest, DaemonInfoNamesTheCompatListener) {
  const json::object native{{"daemon", json::object{{"daemonInstanceId", "daemon-1-ab"},
                                                    {"pid", 42},
                                                    {"listenUrl", "ws://127.0.0.1:4780/"},
                                                    {"name", "box"},
                                                    {"version", "0.9.0"},
                                                    {"startedAt", "2026-01-01T00:00:00.000Z"}}}};
  const auto info = ref_daemon_info(native, "ws://127.0.0.1:4773/");
  EXPECT_TRUE(check_daemon_info(info).empty()) << describe(check_daemon_info(info));
  EXPECT_EQ(info.at("listenUrl").as_string(), "ws://127.0.0.1:4773/");
  EXPECT_EQ(info.at("pid").as_int64(), 42);
  EXPECT_EQ(ref_daemon_info(native.at("daemon").as_object(), "u"), ref_daemon_info(native, "u")) << "wrapped or not";
}

}  // namespace
}  // namespace agentry::api::compat::testing
