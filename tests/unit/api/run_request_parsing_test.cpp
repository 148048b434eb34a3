#include "api/run_request_parsing.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace agentry::api {
namespace {

JsonBody body(const char* text) { return *JsonBody::parse(text); }

TEST(RunRequestParsingTest, InitRequestReadsEveryField) {
  auto r = parse_init_request(body(R"({"agent":"a","assignment":"b","callerCwd":"/tmp","definitionCwd":"/repo",
      "parentRunId":"abc","runGroupId":"wave","backendSessionId":"s","name":"n","cliVars":{"x":1},
      "overrides":{"message":"m","cwd":"/w","model":"o","effort":"high","timeoutSec":60,"maxRetries":5,
                   "backendConfig":{"k":true},"launcher":"nice"}})"),
                              engine::VarOrigin::web);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->agent, "a");
  EXPECT_EQ(r->assignment, "b");
  EXPECT_EQ(r->overrides.max_retries, 5);
  EXPECT_EQ(r->overrides.timeout_sec, 60);
  EXPECT_EQ(r->overrides.launcher, "nice");
  EXPECT_EQ(r->cli_vars.at("x").as_int64(), 1);
}

TEST(RunRequestParsingTest, ParentCompletionFieldsDefaultToUnsetAndInheriting) {
  auto plain = parse_init_request(body(R"({"agent":"a","parentRunId":"p"})"), engine::VarOrigin::web);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_FALSE(plain->notify_parent_on_complete.has_value());
  EXPECT_TRUE(plain->inherit_run_group);
  auto opted = parse_init_request(
      body(R"({"agent":"a","parentRunId":"p","notifyParentOnComplete":false,"inheritRunGroup":false})"),
      engine::VarOrigin::web);
  ASSERT_TRUE(opted.ok()) << opted.error().message;
  EXPECT_EQ(opted->notify_parent_on_complete, false);
  EXPECT_FALSE(opted->inherit_run_group);
  EXPECT_TRUE(parse_init_request(body(R"({"agent":"a","notifyParentOnComplete":false})"), engine::VarOrigin::web).ok());
}

// Without an agent, overrides.backend asks for the ad-hoc agent; with neither, the
// refusal names the agent and says how else to start.
TEST(RunRequestParsingTest, ABackendOverrideStandsInForTheAgent) {
  auto r = parse_init_request(body(R"({"overrides":{"backend":"mock","unrestricted":false,"message":"m"}})"),
                              engine::VarOrigin::web);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->agent.empty());
  EXPECT_EQ(r->overrides.backend, "mock");
  EXPECT_EQ(r->overrides.unrestricted, false);
  auto neither = parse_init_request(body(R"({"overrides":{"message":"m"}})"), engine::VarOrigin::web);
  ASSERT_FALSE(neither.ok());
  EXPECT_EQ(neither.error().details.at("field"), "agent");
  EXPECT_NE(neither.error().message.find("overrides.backend"), std::string::npos) << neither.error().message;
  for (const char* text : {R"({"overrides":{"backend":""}})", R"({"agent":"a","overrides":{"backend":1}})",
                           R"({"agent":"a","overrides":{"unrestricted":"yes"}})"}) {
    auto bad = parse_init_request(body(text), engine::VarOrigin::web);
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_EQ(bad.error().code, core::ErrorCode::invalid_request) << text;
  }
}

TEST(RunRequestParsingTest, InitRequestRejectsBadShapes) {
  const char* bad[] = {
      R"({})",                                                // agent missing
      R"({"agent":""})",                                      // empty agent
      R"({"agent":1})",                                       // wrong type
      R"({"agent":"a","bogus":1})",                           // unknown key
      R"({"agent":"a","overrides":{"colour":"red"}})",        // unknown nested key
      R"({"agent":"a","overrides":{"maxRetries":21}})",       // out of range
      R"({"agent":"a","overrides":{"timeoutSec":"60"}})",     // wrong nested type
      R"({"agent":"a","cliVars":[]})",                        // not an object
      R"({"agent":"a","parentRunId":"has space"})",           // malformed id
      R"({"agent":"a","runGroupId":"../up"})",                // malformed group
      R"({"agent":"a","parentRunId":"p","notifyParentOnComplete":"yes"})",  // not a boolean
      R"({"agent":"a","notifyParentOnComplete":true})",       // nobody to notify
      R"({"agent":"a","inheritRunGroup":0})",                 // not a boolean
  };
  for (const char* text : bad) {
    auto r = parse_init_request(body(text), engine::VarOrigin::web);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().code, core::ErrorCode::invalid_request) << text;
  }
  auto nested = parse_init_request(body(R"({"agent":"a","overrides":{"colour":"red"}})"), engine::VarOrigin::web);
  EXPECT_EQ(nested.error().details.at("field").as_string(), "overrides.colour");
}

TEST(RunRequestParsingTest, ReconfigureRejectsNullMessageAndEmptyBodies) {
  EXPECT_FALSE(parse_reconfigure_request(body(R"({"message":null})")).ok());
  EXPECT_FALSE(parse_reconfigure_request(body(R"({})")).ok());
  auto ok = parse_reconfigure_request(body(R"({"message":""})"));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->message, "");
}

TEST(RunRequestParsingTest, RunQueryTakesAtMostOneScope) {
  auto all = parse_run_query({});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->scope, core::RunQuery::Scope::global) << "no scope lists every run, as the reference";
  EXPECT_FALSE(parse_run_query({{"global", "true"}, {"cwd", "/tmp"}}).ok());
  EXPECT_FALSE(parse_run_query({{"global", "yes"}}).ok());
  EXPECT_FALSE(parse_run_query({{"runGroupId", ""}}).ok());
  EXPECT_FALSE(parse_run_query({{"cwd", "relative"}}).ok());
  EXPECT_FALSE(parse_run_query({{"global", "true"}, {"limit", "0"}}).ok());
  EXPECT_FALSE(parse_run_query({{"global", "true"}, {"limit", "12x"}}).ok());
  EXPECT_FALSE(parse_run_query({{"global", "true"}, {"cursor", "nobar"}}).ok());
  auto q = parse_run_query({{"runGroupId", "wave"}, {"includeArchived", "true"}, {"limit", "5"}});
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->scope, core::RunQuery::Scope::group);
  EXPECT_TRUE(q->include_archived);
  EXPECT_EQ(q->limit, 5u);
}

TEST(JsonBodyTest, MalformedAndNonObjectBodiesAreInvalid) {
  EXPECT_EQ(JsonBody::parse("{").error().details.at("reason").as_string(), "malformed_json");
  EXPECT_EQ(JsonBody::parse("[1]").error().details.at("reason").as_string(), "not_an_object");
  EXPECT_TRUE(JsonBody::parse("").ok());
  EXPECT_FALSE(JsonBody::parse("", false).ok());
}

TEST(JsonBodyTest, NullableDistinguishesAbsentNullAndValue) {
  auto b = body(R"({"a":null,"b":"x"})");
  EXPECT_FALSE(b.nullable_string("c")->present);
  EXPECT_TRUE(b.nullable_string("a")->present);
  EXPECT_FALSE(b.nullable_string("a")->value.has_value());
  EXPECT_EQ(b.nullable_string("b")->value, "x");
  EXPECT_FALSE(body(R"({"a":3})").nullable_string("a").ok());
}

}  // namespace
}  // namespace agentry::api
