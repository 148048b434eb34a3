// The commands end to end over a fake client: argv -> operation name and params,
// output, exit codes.
#include "cli/app.hpp"

#include "cli/interrupt.hpp"
#include "fake_client.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace agentry::cli::testing {
namespace {
namespace json = boost::json;

json::value parse(const char* text) { return json::parse(text); }

Environment env_with(std::map<std::string, std::string> vars) {
  Environment env;
  env.vars = std::move(vars);
  env.cwd = "/work/project";
  return env;
}

/// A run that starts, says something and ends with `status`.
std::shared_ptr<FakeState> run_ending(const std::string& status) {
  auto s = std::make_shared<FakeState>();
  s->answer("runs.start", parse(R"({"run":{"runId":"r1","agent":"coder","backend":"mock","status":"running"}})"));
  s->streams["run_timeline"] = {StreamEvent{"run.timeline", parse(R"({"subscriptionId":"s","runId":"r1","cursor":1,
      "event":{"cursor":1,"kind":"notice","at":"2026-04-18T10:35:00.000Z","payload":{"message":"working"}}})").as_object()}};
  s->streams["run_detail"] = {StreamEvent{
      "run.detail", json::object{{"type", "run_detail"}, {"run", {{"runId", "r1"}, {"status", status}, {"tasks", json::array{}}}}}}};
  s->answer("runs.timelineHistory", parse(R"({"runId":"r1","events":[],"lastCursor":1})"));
  s->answer("runs.get", json::object{{"run", {{"runId", "r1"}, {"status", status}, {"statusReason", "because"}}}});
  return s;
}

TEST(RunCommandTest, StartsWithEveryOptionAndFollowsToTheEnd) {
  auto s = run_ending("success");
  auto r = run_cli_with({"run", "coder", "-a", "feature", "-m", "hi", "--var", "size=3", "--var", "eq=a=b", "--cwd",
                         "sub", "--name", "N", "--model", "m", "--effort", "high", "--timeout", "5", "--max-retries", "2",
                         "--launcher", "nice"},
                        s);
  EXPECT_EQ(r.code, 0) << r.err;
  auto start = s->calls_to("runs.start");
  ASSERT_EQ(start.size(), 1u);
  EXPECT_EQ(start[0], parse(R"({"agent":"coder","callerCwd":"/work/project","definitionCwd":"/work/project/sub",
      "assignment":"feature","name":"N","cliVars":{"size":"3","eq":"a=b"},
      "overrides":{"message":"hi","cwd":"sub","model":"m","effort":"high","launcher":"nice","timeoutSec":5,"maxRetries":2}})"));
  EXPECT_NE(r.out.find("run r1 · agent coder on mock"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("10:35:00 · working"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("══ run success: because ══"), std::string::npos) << r.out;
  EXPECT_EQ(s->unsubscribed, 2);
}

// No agent but --backend: the ad-hoc agent on it; --unrestricted/--restricted set the override.
TEST(RunCommandTest, BackendWithoutAnAgentAndTheRestrictionOverrides) {
  auto s = run_ending("success");
  auto r = run_cli_with({"run", "--backend", "mock", "--restricted", "-m", "hi"}, s);
  EXPECT_EQ(r.code, 0) << r.err;
  auto start = s->calls_to("runs.start");
  ASSERT_EQ(start.size(), 1u);
  EXPECT_FALSE(start[0].contains("agent"));
  EXPECT_EQ(start[0].at("overrides"), parse(R"({"message":"hi","backend":"mock","unrestricted":false})"));
  auto loosened = run_ending("success");
  EXPECT_EQ(run_cli_with({"run", "coder", "--unrestricted", "-m", "hi"}, loosened).code, 0);
  EXPECT_EQ(loosened->calls_to("runs.start").at(0).at("overrides").at("unrestricted"), true);
  auto neither = run_cli_with({"run", "-m", "hi"}, run_ending("success"));
  EXPECT_EQ(neither.code, 3);
  EXPECT_NE(neither.err.find("--backend"), std::string::npos) << neither.err;
  EXPECT_EQ(run_cli_with({"run", "coder", "--unrestricted", "--restricted", "-m", "hi"}, run_ending("success")).code, 3);
}

TEST(RunCommandTest, ExitsWithTheRunsCode) {
  for (auto [status, code] : {std::pair{"success", 0}, std::pair{"exhausted", 1}, std::pair{"blocked", 2},
                              std::pair{"error", 4}, std::pair{"aborted", 130}}) {
    auto r = run_cli_with({"run", "coder", "-m", "x"}, run_ending(status));
    EXPECT_EQ(r.code, code) << status << ": " << r.err;
  }
}

TEST(RunCommandTest, JsonPrintsOnlyTheFinalRun) {
  auto r = run_cli_with({"run", "coder", "-m", "x", "--json"}, run_ending("blocked"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(json::parse(r.out).at("run").at("status"), "blocked") << r.out;
}

TEST(RunCommandTest, LineageComesFromTheCallingRun) {
  auto s = run_ending("success");
  auto r = run_cli_with({"run", "coder", "-m", "x"}, s,
                        env_with({{"AGENTRY_RUN_ID", "caller"}, {"AGENTRY_PARENT_RUN_ID", "grandparent"},
                                  {"AGENTRY_RUN_GROUP_ID", "wave"}}));
  ASSERT_EQ(r.code, 0) << r.err;
  auto params = s->calls_to("runs.start").at(0);
  EXPECT_EQ(params.at("parentRunId"), "caller");
  EXPECT_EQ(params.at("runGroupId"), "wave");

  auto outside = run_ending("success");
  ASSERT_EQ(run_cli_with({"run", "coder", "-m", "x"}, outside, env_with({{"AGENTRY_PARENT_RUN_ID", "p"}})).code, 0);
  EXPECT_EQ(outside->calls_to("runs.start").at(0).at("parentRunId"), "p");

  auto explicit_none = run_ending("success");
  ASSERT_EQ(run_cli_with({"run", "coder", "-m", "x", "--parent", "", "--group", "g2"}, explicit_none,
                         env_with({{"AGENTRY_RUN_ID", "caller"}, {"AGENTRY_RUN_GROUP_ID", "wave"}}))
                .code,
            0);
  auto params2 = explicit_none->calls_to("runs.start").at(0);
  EXPECT_FALSE(params2.contains("parentRunId"));
  EXPECT_EQ(params2.at("runGroupId"), "g2");
}

TEST(RunCommandTest, RefusesToNestTooDeep) {
  auto s = run_ending("success");
  auto r = run_cli_with({"run", "coder", "-m", "x"}, s, env_with({{"AGENTRY_CALL_DEPTH", "8"}}));
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("the limit is 8"), std::string::npos) << r.err;
  EXPECT_EQ(s->opened, 0);
  EXPECT_EQ(run_cli_with({"run", "coder", "-m", "x"}, run_ending("success"), env_with({{"AGENTRY_CALL_DEPTH", "7"}})).code, 0);
  EXPECT_EQ(run_cli_with({"run", "coder", "-m", "x"}, s, env_with({{"AGENTRY_CALL_DEPTH", "many"}})).code, 3);
  // AGENTRY_MAX_CALL_DEPTH moves the limit, as it does the daemon's.
  auto lower = run_cli_with({"run", "coder", "-m", "x"}, s,
                            env_with({{"AGENTRY_CALL_DEPTH", "2"}, {"AGENTRY_MAX_CALL_DEPTH", "2"}}));
  EXPECT_EQ(lower.code, 3);
  EXPECT_NE(lower.err.find("the limit is 2"), std::string::npos) << lower.err;
  EXPECT_EQ(run_cli_with({"run", "coder", "-m", "x"}, run_ending("success"),
                         env_with({{"AGENTRY_CALL_DEPTH", "8"}, {"AGENTRY_MAX_CALL_DEPTH", "9"}}))
                .code,
            0);
}

TEST(RunCommandTest, DetachNeedsADaemon) {
  auto s = run_ending("success");
  auto embedded = run_cli_with({"run", "coder", "-m", "x", "--detach"}, s);
  EXPECT_EQ(embedded.code, 3);
  EXPECT_NE(embedded.err.find("--detach needs a daemon"), std::string::npos) << embedded.err;
  EXPECT_EQ(s->opened, 0);

  auto connected = run_cli_with({"--connect", "ws://127.0.0.1:4773/", "run", "coder", "-m", "x", "-d"}, s);
  EXPECT_EQ(connected.code, 0) << connected.err;
  EXPECT_EQ(connected.out, "r1\n");
  EXPECT_TRUE(s->subscriptions.empty());

  auto from_env = run_cli_with({"run", "coder", "-m", "x", "-d", "--json"}, s,
                               env_with({{"AGENTRY_CONNECT", "ws://127.0.0.1:4773/"}}));
  EXPECT_EQ(from_env.code, 0) << from_env.err;
  EXPECT_EQ(json::parse(from_env.out).at("run").at("runId"), "r1");
}

TEST(RunCommandTest, DetachedChildrenAskToNotifyTheirParent) {
  const std::vector<std::string> connect{"--connect", "ws://127.0.0.1:4773/"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.begin(), connect.begin(), connect.end());
    return args;
  };
  const auto inside = env_with({{"AGENTRY_RUN_ID", "caller"}, {"AGENTRY_RUN_GROUP_ID", "wave"}});
  auto s = run_ending("success");
  ASSERT_EQ(run_cli_with(with({"run", "coder", "-m", "x", "-d"}), s, inside).code, 0);
  auto params = s->calls_to("runs.start").at(0);
  EXPECT_EQ(params.at("notifyParentOnComplete"), true);
  EXPECT_FALSE(params.contains("inheritRunGroup"));
  EXPECT_EQ(params.at("runGroupId"), "wave");

  auto quiet = run_ending("success");
  ASSERT_EQ(run_cli_with(with({"run", "coder", "-m", "x", "-d", "--no-notify-parent-on-complete",
                               "--no-inherit-run-group"}),
                         quiet, inside)
                .code,
            0);
  params = quiet->calls_to("runs.start").at(0);
  EXPECT_EQ(params.at("notifyParentOnComplete"), false);
  EXPECT_EQ(params.at("inheritRunGroup"), false);
  EXPECT_FALSE(params.contains("runGroupId")) << "the parent's group from the environment is ignored";

  // In the foreground the caller follows the child itself; no parent, nothing to say.
  auto foreground = run_ending("success");
  ASSERT_EQ(run_cli_with({"run", "coder", "-m", "x"}, foreground, inside).code, 0);
  EXPECT_EQ(foreground->calls_to("runs.start").at(0).at("notifyParentOnComplete"), false);
  auto top = run_ending("success");
  ASSERT_EQ(run_cli_with(with({"run", "coder", "-m", "x", "-d"}), top).code, 0);
  EXPECT_FALSE(top->calls_to("runs.start").at(0).contains("notifyParentOnComplete"));
}

TEST(RunCommandTest, BadArgumentsAreRefusedBeforeAnyCall) {
  auto s = std::make_shared<FakeState>();
  EXPECT_EQ(run_cli_with({"run", "coder"}, s).code, 3);  // neither --assignment nor --message
  EXPECT_EQ(run_cli_with({"run", "coder", "-m", "x", "--var", "novalue"}, s).code, 3);
  EXPECT_EQ(run_cli_with({"run"}, s).code, 3);
  EXPECT_EQ(run_cli_with({"run", "coder", "-m", "x", "--max-retries", "99"}, s).code, 3);
  EXPECT_EQ(run_cli_with({"frobnicate"}, s).code, 3);
  EXPECT_EQ(run_cli_with({}, s).code, 3);
  EXPECT_TRUE(s->calls.empty());
  EXPECT_EQ(run_cli_with({"--help"}, s).code, 0);
  EXPECT_EQ(run_cli_with({"run", "--help"}, s).code, 0);
  auto serve = run_cli_with({"serve", "--connect", "ws://127.0.0.1:1/"}, s);
  EXPECT_EQ(serve.code, 3);
  EXPECT_NE(serve.err.find("--connect"), std::string::npos);
}

TEST(RunCommandTest, CtrlCAbortsTheRunAndExits130) {
  auto s = run_ending("success");
  s->streams["run_detail"] = {StreamEvent{
      "run.detail", json::object{{"type", "run_detail"}, {"run", {{"runId", "r1"}, {"status", "running"}}}}}};
  s->answers["runs.start"] = [](const json::object&) -> core::Result<json::value> {
    InterruptGuard::simulate();  // Ctrl-C while the run starts
    return parse(R"({"run":{"runId":"r1","agent":"coder","backend":"mock","status":"running"}})");
  };
  s->answer("runs.abort", parse(R"({"run":{"runId":"r1","status":"aborted"}})"));
  auto r = run_cli_with({"run", "coder", "-m", "x"}, s);
  EXPECT_EQ(r.code, 130) << r.err;
  auto aborts = s->calls_to("runs.abort");
  ASSERT_EQ(aborts.size(), 1u);
  EXPECT_EQ(aborts[0].at("runId"), "r1");
}

TEST(RunCommandTest, InitAndResume) {
  auto s = std::make_shared<FakeState>();
  s->answer("runs.init", parse(R"({"run":{"runId":"r2","agent":"coder","backend":"passive","status":"initialized"}})"));
  auto init = run_cli_with({"init", "coder", "-a", "feature"}, s);
  EXPECT_EQ(init.code, 0) << init.err;
  EXPECT_EQ(init.out, "r2\n");
  EXPECT_NE(init.err.find("agentry resume r2"), std::string::npos);

  // Resume follows from the timeline's end: only the new session is printed.
  auto r = run_ending("success");
  r->answers["runs.timelineHistory"] = [](const json::object& p) -> core::Result<json::value> {
    std::int64_t after = p.at("after").as_int64();
    return json::value(json::object{{"runId", "r1"}, {"events", json::array{}}, {"lastCursor", after < 40 ? after + 20 : after}});
  };
  r->answer("runs.resume", parse(R"({"run":{"runId":"r1","status":"running"}})"));
  auto resumed = run_cli_with({"resume", "r1", "-m", "more"}, r);
  EXPECT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(r->calls_to("runs.resume").at(0), parse(R"({"runId":"r1","message":"more"})"));
  EXPECT_EQ(r->subscriptions.at(0).after, 40);
}

std::vector<std::string> methods_of(const FakeState& s) {
  std::vector<std::string> out;
  for (const auto& c : s.calls) out.push_back(c.method);
  return out;
}

TEST(RunCommandTest, AddTaskCreatesTheRunAddsItsTasksThenStartsIt) {
  auto s = run_ending("success");
  s->answer("runs.init", parse(R"({"run":{"runId":"r1","agent":"coder","backend":"mock","status":"initialized"}})"));
  s->answer("tasks.add", parse(R"({"task":{"runId":"r1","id":"t","status":"pending"}})"));
  s->answer("runs.resume", parse(R"({"run":{"runId":"r1","agent":"coder","backend":"mock","status":"running"}})"));
  auto r = run_cli_with({"run", "coder", "-m", "x", "--add-task", "First", "--add-task", "Second"}, s);
  EXPECT_EQ(r.code, 0) << r.err;
  auto methods = methods_of(*s);
  ASSERT_GE(methods.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(methods.begin(), methods.begin() + 4),
            (std::vector<std::string>{"runs.init", "tasks.add", "tasks.add", "runs.resume"}));
  EXPECT_TRUE(s->calls_to("runs.start").empty());
  EXPECT_EQ(s->calls_to("tasks.add").at(1), parse(R"({"runId":"r1","title":"Second"})"));
  EXPECT_EQ(s->calls_to("runs.resume").at(0), parse(R"({"runId":"r1"})"));
  EXPECT_NE(r.out.find("══ run success: because ══"), std::string::npos) << r.out;

  // init prints the run as it is once its tasks are in.
  auto i = std::make_shared<FakeState>();
  i->answer("runs.init", parse(R"({"run":{"runId":"r2","agent":"coder","backend":"passive","status":"initialized"}})"));
  i->answer("tasks.add", parse(R"({"task":{"runId":"r2","id":"t","status":"pending"}})"));
  i->answer("runs.get", parse(R"({"run":{"runId":"r2","status":"initialized","tasks":[{"id":"t"}]}})"));
  auto init = run_cli_with({"init", "coder", "-m", "x", "--add-task", "T", "--json"}, i);
  EXPECT_EQ(init.code, 0) << init.err;
  EXPECT_EQ(json::parse(init.out).at("run").at("tasks").as_array().size(), 1u);
  EXPECT_EQ(methods_of(*i), (std::vector<std::string>{"runs.init", "tasks.add", "runs.get"}));
}

TEST(RunCommandTest, ARefusedTaskLeavesNoRunBehind) {
  auto s = std::make_shared<FakeState>();
  s->answer("runs.init", parse(R"({"run":{"runId":"r1","agent":"coder","backend":"mock","status":"initialized"}})"));
  s->answers["tasks.add"] = [](const json::object&) -> core::Result<json::value> {
    return core::fail(core::ErrorCode::conflict, "cannot add tasks to run r1: the run's tasks are locked");
  };
  s->answer("runs.archive", parse(R"({"run":{"runId":"r1","status":"initialized"}})"));
  s->answer("runs.delete", parse(R"({"result":{"runId":"r1","deleted":true}})"));
  auto r = run_cli_with({"run", "coder", "-m", "x", "--add-task", "T"}, s);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("tasks are locked"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("run r1 was not kept"), std::string::npos) << r.err;
  EXPECT_EQ(methods_of(*s), (std::vector<std::string>{"runs.init", "tasks.add", "runs.archive", "runs.delete"}));

  auto empty = std::make_shared<FakeState>();
  EXPECT_EQ(run_cli_with({"run", "coder", "-m", "x", "--add-task", ""}, empty).code, 3);
  EXPECT_TRUE(empty->calls.empty());
}

TEST(RunCommandTest, ParentRunAndMessageFile) {
  const auto path = std::filesystem::temp_directory_path() / ("agentry-message-" + std::to_string(::getpid()));
  std::ofstream(path) << "Line one\nline two\n";
  auto s = run_ending("success");
  auto r = run_cli_with({"run", "coder", "--message-file", path.string(), "--parent-run", "p1", "--group-id", "g"}, s,
                        env_with({{"AGENTRY_RUN_ID", "caller"}}));
  std::filesystem::remove(path);
  EXPECT_EQ(r.code, 0) << r.err;
  auto params = s->calls_to("runs.start").at(0);
  EXPECT_EQ(params.at("parentRunId"), "p1");
  EXPECT_EQ(params.at("runGroupId"), "g");
  EXPECT_EQ(params.at("overrides").at("message"), "Line one\nline two\n");

  auto none = std::make_shared<FakeState>();
  auto missing = run_cli_with({"run", "coder", "--message-file", "no-such-file"}, none);
  EXPECT_EQ(missing.code, 3);
  EXPECT_NE(missing.err.find("cannot read --message-file no-such-file"), std::string::npos) << missing.err;
  EXPECT_EQ(run_cli_with({"run", "coder", "-m", "x", "--message-file", "f"}, none).code, 3);  // one or the other
  EXPECT_TRUE(none->calls.empty());
}

TEST(RunCommandTest, ReconfigureSendsVarsAndMessage) {
  auto s = std::make_shared<FakeState>();
  s->answer("runs.reconfigure", parse(R"({"run":{"runId":"r1","status":"initialized"}})"));
  auto r = run_cli_with({"reconfigure", "r1", "--var", "size=3", "--unset-var", "scope", "-m", ""}, s);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "reconfigured run r1: initialized\n");
  EXPECT_EQ(s->calls_to("runs.reconfigure").at(0),
            parse(R"({"runId":"r1","vars":{"size":"3","scope":null},"message":""})"));
  EXPECT_EQ(run_cli_with({"reconfigure", "r1"}, s).code, 3);  // nothing to change
  EXPECT_EQ(run_cli_with({"reconfigure", "r1", "--var", "a=1", "--unset-var", "a"}, s).code, 3);
  EXPECT_EQ(run_cli_with({"reconfigure", "r1", "--var", "novalue"}, s).code, 3);
  EXPECT_EQ(s->calls_to("runs.reconfigure").size(), 1u);
}

TEST(MetadataCommandTest, EachCallsItsOperation) {
  auto s = std::make_shared<FakeState>();
  s->answers["runs.setName"] = [](const json::object& p) -> core::Result<json::value> {
    return json::value(json::object{{"run", {{"runId", "r1"}, {"name", p.at("name")}}}});
  };
  s->answer("runs.setNote", parse(R"({"run":{"runId":"r1","note":"hello"}})"));
  s->answer("runs.setPinned", parse(R"({"run":{"runId":"r1","pinned":true}})"));
  s->answer("runs.setGroup", parse(R"({"run":{"runId":"r1","runGroupId":"wave"}})"));
  s->answer("runs.clearGroup", parse(R"({"run":{"runId":"r1","runGroupId":"r1"}})"));
  EXPECT_EQ(run_cli_with({"name", "r1", "Dark mode"}, s).out, "named run r1: Dark mode\n");
  EXPECT_EQ(run_cli_with({"name", "r1", "--clear"}, s).out, "cleared the name of run r1\n");
  EXPECT_EQ(run_cli_with({"note", "r1", "hello"}, s).out, "set the note of run r1 (5 bytes)\n");
  EXPECT_EQ(run_cli_with({"note", "r1", "--clear"}, s).code, 0);
  EXPECT_EQ(run_cli_with({"pin", "r1"}, s).out, "pinned run r1\n");
  EXPECT_EQ(run_cli_with({"unpin", "r1"}, s).code, 0);
  EXPECT_EQ(run_cli_with({"group", "r1", "wave"}, s).out, "run r1 is in group wave\n");
  EXPECT_EQ(run_cli_with({"group", "r1", "--clear"}, s).out, "run r1 is in its own group\n");
  EXPECT_EQ(s->calls_to("runs.setName").at(0), parse(R"({"runId":"r1","name":"Dark mode"})"));
  EXPECT_EQ(s->calls_to("runs.setName").at(1), parse(R"({"runId":"r1","name":null})"));
  EXPECT_EQ(s->calls_to("runs.setNote").at(0), parse(R"({"runId":"r1","note":"hello"})"));
  EXPECT_EQ(s->calls_to("runs.setNote").at(1), parse(R"({"runId":"r1","note":null})"));
  EXPECT_EQ(s->calls_to("runs.setPinned").at(0), parse(R"({"runId":"r1","pinned":true})"));
  EXPECT_EQ(s->calls_to("runs.setPinned").at(1), parse(R"({"runId":"r1","pinned":false})"));
  EXPECT_EQ(s->calls_to("runs.setGroup").at(0), parse(R"({"runId":"r1","runGroupId":"wave"})"));
  EXPECT_EQ(s->calls_to("runs.clearGroup").at(0), parse(R"({"runId":"r1"})"));

  const auto before = s->calls.size();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"name", "r1"}, {"name", "r1", ""}, {"name", "r1", "x", "--clear"}, {"note", "r1"},
        {"group", "r1"}, {"group", "r1", "g", "--clear"}, {"pin"}, {"unpin", "r1", "extra"}})
    EXPECT_EQ(run_cli_with(args, s).code, 3) << args[0];
  EXPECT_EQ(s->calls.size(), before);
}

TEST(QueryCommandTest, StatusExitsWithTheRunsCode) {
  for (auto [status, code] : {std::pair{"running", 0}, std::pair{"initialized", 0}, std::pair{"success", 0},
                              std::pair{"exhausted", 1}, std::pair{"blocked", 2}, std::pair{"error", 4},
                              std::pair{"aborted", 130}}) {
    auto s = std::make_shared<FakeState>();
    s->answer("runs.get", json::object{{"run", {{"runId", "r1"}, {"status", status}}}});
    auto r = run_cli_with({"status", "r1"}, s);
    EXPECT_EQ(r.code, code) << status;
    EXPECT_EQ(r.out.rfind(std::string("r1 ") + status, 0), 0u) << r.out;
    auto j = run_cli_with({"status", "r1", "--json"}, s);
    EXPECT_EQ(j.code, code) << status;
    EXPECT_EQ(json::parse(j.out).at("run").at("status"), status);
  }
}

TEST(QueryCommandTest, BriefPrintsThePromptVerbatim) {
  auto s = std::make_shared<FakeState>();
  s->answer("runs.brief", parse(R"({"runId":"r1","brief":"You are the worker.\n\nBuild it."})"));
  auto r = run_cli_with({"brief", "r1"}, s);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "You are the worker.\n\nBuild it.\n");
  EXPECT_EQ(json::parse(run_cli_with({"brief", "r1", "--json"}, s).out).at("brief"), "You are the worker.\n\nBuild it.");
  EXPECT_EQ(s->calls_to("runs.brief").at(0), parse(R"({"runId":"r1"})"));
}

TEST(TaskCommandTest, DefaultsToTheRunTheAgentIsIn) {
  auto s = std::make_shared<FakeState>();
  s->answer("tasks.set", parse(R"({"task":{"runId":"r9","id":"plan","status":"completed"}})"));
  auto r = run_cli_with({"task", "set", "plan", "--status", "completed", "--notes", "done"}, s,
                        env_with({{"AGENTRY_RUN_ID", "r9"}}));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "updated task plan of run r9: completed\n");
  EXPECT_EQ(s->calls_to("tasks.set").at(0),
            parse(R"({"runId":"r9","taskId":"plan","status":"completed","notes":"done"})"));

  auto no_run = run_cli_with({"task", "set", "plan", "-s", "completed"}, s);
  EXPECT_EQ(no_run.code, 3);
  EXPECT_NE(no_run.err.find("--run"), std::string::npos);
  EXPECT_EQ(run_cli_with({"task", "set", "plan", "-s", "done", "-r", "r9"}, s).code, 3);  // not a status
  EXPECT_EQ(run_cli_with({"task", "set", "plan", "-r", "r9"}, s).code, 3);                // nothing to change
  EXPECT_EQ(run_cli_with({"task"}, s).code, 3);
}

TEST(TaskCommandTest, EverySubcommandCallsItsOperation) {
  auto s = std::make_shared<FakeState>();
  json::value task = parse(R"({"task":{"runId":"r","id":"t","status":"pending","title":"T"}})");
  for (const char* m : {"tasks.appendNotes", "tasks.add", "tasks.get"}) s->answer(m, task);
  s->answer("tasks.list", parse(R"({"runId":"r","tasks":[{"id":"t","status":"pending","title":"T","notes":""}]})"));
  s->answer("tasks.delete", parse(R"({"result":{"runId":"r","taskId":"t","deleted":true}})"));
  EXPECT_EQ(run_cli_with({"task", "append-notes", "t", "a line", "--run", "r"}, s).code, 0);
  EXPECT_EQ(run_cli_with({"task", "add", "T", "--id", "t", "--body", "B", "-r", "r"}, s).code, 0);
  EXPECT_EQ(run_cli_with({"task", "show", "t", "-r", "r"}, s).code, 0);
  EXPECT_EQ(run_cli_with({"task", "delete", "t", "-r", "r"}, s).code, 0);
  auto list = run_cli_with({"task", "list", "-r", "r"}, s);
  EXPECT_EQ(list.out, "TASK  STATUS   TITLE  NOTES\nt     pending  T\n");
  EXPECT_EQ(s->calls_to("tasks.appendNotes").at(0), parse(R"({"runId":"r","taskId":"t","text":"a line"})"));
  EXPECT_EQ(s->calls_to("tasks.add").at(0), parse(R"({"runId":"r","title":"T","id":"t","body":"B"})"));
  EXPECT_EQ(s->calls_to("tasks.get").at(0), parse(R"({"runId":"r","taskId":"t"})"));
  EXPECT_EQ(s->calls_to("tasks.delete").at(0), parse(R"({"runId":"r","taskId":"t"})"));
  EXPECT_EQ(s->calls_to("tasks.list").at(0), parse(R"({"runId":"r"})"));
}

TEST(QueryCommandTest, ListScopes) {
  auto s = std::make_shared<FakeState>();
  s->answer("runs.list", parse(R"({"runs":[],"nextCursor":null})"));
  EXPECT_EQ(run_cli_with({"list"}, s).out, "no runs\n");
  run_cli_with({"list", "--global", "--all", "-n", "5"}, s);
  run_cli_with({"list", "--group", "wave"}, s);
  run_cli_with({"list", "--repo", "../other"}, s);
  run_cli_with({"list", "--cwd", "/abs", "--cursor", "c"}, s);
  auto calls = s->calls_to("runs.list");
  ASSERT_EQ(calls.size(), 5u);
  EXPECT_EQ(calls[0], parse(R"({"cwd":"/work/project"})"));
  EXPECT_EQ(calls[1], parse(R"({"global":true,"includeArchived":true,"limit":5})"));
  EXPECT_EQ(calls[2], parse(R"({"runGroupId":"wave"})"));
  EXPECT_EQ(calls[3], parse(R"({"repo":"/work/other"})"));
  EXPECT_EQ(calls[4], parse(R"({"cwd":"/abs","cursor":"c"})"));
  EXPECT_EQ(run_cli_with({"list", "--global", "--group", "g"}, s).code, 3);
}

TEST(QueryCommandTest, JsonIsTheOperationsResultVerbatim) {
  auto s = std::make_shared<FakeState>();
  auto result = parse(R"({"run":{"runId":"r1","status":"running","tasks":[],"sessions":[]}})");
  s->answer("runs.get", result);
  auto r = run_cli_with({"show", "r1", "--json"}, s);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, json::serialize(result) + "\n");
  auto global_first = run_cli_with({"--json", "show", "r1"}, s);
  EXPECT_EQ(global_first.out, r.out);
}

TEST(QueryCommandTest, LogsAndAuditPageThroughHistory) {
  auto s = std::make_shared<FakeState>();
  s->answers["runs.timelineHistory"] = [](const json::object& p) -> core::Result<json::value> {
    std::int64_t after = p.at("after").as_int64();
    json::array events;
    if (after < 2)
      events.push_back(json::object{{"cursor", after + 1}, {"kind", "notice"}, {"at", "2026-04-18T10:35:00.000Z"},
                                    {"payload", {{"message", "n" + std::to_string(after + 1)}}}});
    return json::value(json::object{{"runId", "r1"}, {"attempts", json::array{}}, {"events", events},
                                    {"lastCursor", events.empty() ? after : after + 1}});
  };
  auto logs = run_cli_with({"logs", "r1"}, s);
  EXPECT_EQ(logs.code, 0);
  EXPECT_EQ(logs.out, "10:35:00 · n1\n10:35:00 · n2\n");
  auto as_json = run_cli_with({"logs", "r1", "--json"}, s);
  auto joined = json::parse(as_json.out);
  EXPECT_EQ(joined.at("events").as_array().size(), 2u);
  EXPECT_EQ(joined.at("lastCursor").as_int64(), 2);
  auto limited = run_cli_with({"logs", "r1", "-n", "1"}, s);
  EXPECT_EQ(limited.out, "10:35:00 · n1\n");

  s->answer("runs.auditHistory", parse(R"({"runId":"r1","events":[],"lastCursor":0})"));
  EXPECT_EQ(run_cli_with({"audit", "r1"}, s).out, "no audit records\n");
}

TEST(ErrorTest, RefusalsExit3AndFailuresExit4) {
  auto s = std::make_shared<FakeState>();
  s->answers["runs.archive"] = [](const json::object&) -> core::Result<json::value> {
    return core::fail(core::ErrorCode::conflict, "cannot archive run r1: run is running",
                      {{"runId", "r1"}, {"status", "running"}});
  };
  s->answers["runs.reset"] = [](const json::object&) -> core::Result<json::value> {
    return core::fail(core::ErrorCode::internal, "lost the connection to the daemon");
  };
  auto conflict = run_cli_with({"archive", "r1"}, s);
  EXPECT_EQ(conflict.code, 3);
  EXPECT_EQ(conflict.err, "agentry: cannot archive run r1: run is running\n  status: running\n");
  EXPECT_EQ(run_cli_with({"reset", "r1"}, s).code, 4);
  EXPECT_EQ(run_cli_with({"show", "nope"}, s).code, 3);  // NOT_FOUND
}

TEST(InfoCommandTest, DefinitionsListEveryKindOrShowsOne) {
  auto s = std::make_shared<FakeState>();
  for (const char* kind : {"agents", "assignments", "launchers", "environments", "taskDefinitions"})
    s->answer(std::string(kind) + ".list",
              json::object{{kind, {{"kind", kind}, {"entries", json::array{}}, {"warnings", json::array{}}}}});
  s->answer("agents.get", parse(R"({"agent":{"kind":"agent","agent":{"name":"coder"},"sourcePath":"/c","warnings":[]}})"));
  auto all = run_cli_with({"definitions", "--json"}, s);
  EXPECT_EQ(all.code, 0) << all.err;
  EXPECT_TRUE(json::parse(all.out).as_object().contains("taskDefinitions"));
  EXPECT_TRUE(json::parse(all.out).as_object().contains("environments"));
  EXPECT_EQ(s->calls_to("agents.list").at(0), parse(R"({"cwd":"/work/project"})"));
  auto one = run_cli_with({"definitions", "agent", "coder"}, s);
  EXPECT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(s->calls_to("agents.get").at(0), parse(R"({"cwd":"/work/project","target":"coder"})"));
  EXPECT_EQ(run_cli_with({"definitions", "widgets"}, s).code, 3);
  // `environments` is the same listing and lookup under a command of its own.
  EXPECT_EQ(run_cli_with({"environments", "list"}, s).code, 0);
  EXPECT_EQ(s->calls_to("environments.list").size(), 2u);  // with `definitions` above
  s->answers["environments.get"] = [](const json::object&) -> core::Result<json::value> {
    return core::fail(core::ErrorCode::validation, "environment 'loose' has problems",
                      {{"problems", json::array{{{"field", "netwrok"}, {"message", "unknown field"}}}}});
  };
  auto invalid = run_cli_with({"environments", "validate", "loose"}, s);
  EXPECT_EQ(invalid.code, 3) << invalid.err;
  EXPECT_NE(invalid.err.find("loose"), std::string::npos) << invalid.err;
  EXPECT_EQ(s->calls_to("environments.get").at(0), parse(R"({"cwd":"/work/project","target":"loose"})"));
  EXPECT_NE(run_cli_with({"environments", "show"}, s).code, 0);  // the name is required
  s->answer("backends.list", parse(R"({"backends":[],"loadErrors":[]})"));
  EXPECT_EQ(run_cli_with({"backends"}, s).code, 0);
}

}  // namespace
}  // namespace agentry::cli::testing
