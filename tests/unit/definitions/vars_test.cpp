#include "definitions/vars.hpp"

#include "test_support.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

using testing::fake_env;
using testing::has_problem;
using testing::problems_of;

VarSpec spec(std::string name, VarType type, bool required = false) {
  VarSpec out;
  out.name = std::move(name);
  out.type = type;
  out.required = required;
  return out;
}

std::vector<Problem> failure(const core::Result<boost::json::object>& result) {
  EXPECT_FALSE(result.ok());
  if (result.ok()) return {};
  EXPECT_EQ(result.error().code, core::ErrorCode::validation);
  return problems_of(result.error());
}

TEST(ResolveVars, SourcesAreTriedInTheirOrderThenTheDefault) {
  VarSpec target = spec("target", VarType::string);
  target.sources = {VarSource::cli, VarSource::web, VarSource::env, VarSource::parent};
  target.default_value = boost::json::value("from-default");
  const std::vector<VarSpec> specs{target};
  const boost::json::object parent{{"target", "from-parent"}};
  const auto env = fake_env({{"AGENTRY_VAR_TARGET", "from-env"}});

  auto all = resolve_var_values(specs, {{"target", "from-cli"}}, VarSource::cli, env, &parent);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all->values.at("target").as_string(), "from-cli");
  EXPECT_EQ(all->origins.at("target"), VarSource::cli);

  auto from_env = resolve_var_values(specs, {}, VarSource::cli, env, &parent);
  EXPECT_EQ(from_env->values.at("target").as_string(), "from-env");
  EXPECT_EQ(from_env->origins.at("target"), VarSource::env);
  auto from_parent = resolve_var_values(specs, {}, VarSource::cli, fake_env(), &parent);
  EXPECT_EQ(from_parent->values.at("target").as_string(), "from-parent");
  EXPECT_EQ(from_parent->origins.at("target"), VarSource::parent);
  auto from_default = resolve_var_values(specs, {}, VarSource::cli, fake_env(), nullptr);
  EXPECT_EQ(from_default->values.at("target").as_string(), "from-default");
  EXPECT_EQ(from_default->origins.count("target"), 0u);

  // The order is the spec's: here the parent's value beats the environment, which beats
  // the caller's.
  target.sources = {VarSource::parent, VarSource::env, VarSource::cli};
  EXPECT_EQ(resolve_vars({target}, {{"target", "from-cli"}}, VarSource::cli, env, &parent)->at("target").as_string(),
            "from-parent");
  EXPECT_EQ(resolve_vars({target}, {{"target", "from-cli"}}, VarSource::cli, env, nullptr)->at("target").as_string(),
            "from-env");
  EXPECT_EQ(
      resolve_vars({target}, {{"target", "from-cli"}}, VarSource::cli, fake_env(), nullptr)->at("target").as_string(),
      "from-cli");
}

TEST(ResolveVars, WithoutSourcesOnlyTheCallerMaySetAVar) {
  const VarSpec plain = spec("target", VarType::string);
  EXPECT_EQ(plain.sources, (std::vector<VarSource>{VarSource::cli, VarSource::web}));
  const boost::json::object parent{{"target", "from-parent"}};
  const auto env = fake_env({{"AGENTRY_VAR_TARGET", "from-env"}});
  EXPECT_TRUE(resolve_vars({plain}, {}, VarSource::cli, env, &parent)->at("target").is_null());
  EXPECT_EQ(resolve_vars({plain}, {{"target", "x"}}, VarSource::web, env, &parent)->at("target").as_string(), "x");
}

TEST(ResolveVars, DisallowedSourcesAreSkippedOrRejected) {
  VarSpec target = spec("target", VarType::string);
  target.sources = {VarSource::web, VarSource::parent};
  const boost::json::object parent{{"target", "from-parent"}};
  const auto env = fake_env({{"AGENTRY_VAR_TARGET", "from-env"}});

  EXPECT_EQ(resolve_vars({target}, {}, VarSource::web, env, &parent)->at("target").as_string(), "from-parent");
  const auto problems = failure(resolve_vars({target}, {{"target", "x"}}, VarSource::cli, env, &parent));
  EXPECT_TRUE(has_problem(problems, "", "vars.target", "cannot be set from cli")) << testing::dump(problems);
}

TEST(ResolveVars, CustomEnvNameAndEmptyEnvIsUnset) {
  VarSpec count = spec("count", VarType::number);
  count.sources = {VarSource::env};
  count.env = "COUNT";
  count.default_value = boost::json::value(1);
  EXPECT_EQ(resolve_vars({count}, {}, VarSource::cli, fake_env({{"COUNT", "7"}}))->at("count").as_int64(), 7);
  EXPECT_EQ(resolve_vars({count}, {}, VarSource::cli, fake_env({{"COUNT", ""}}))->at("count").as_int64(), 1);
}

TEST(ResolveVars, UnknownGivenKeysAreNamed) {
  const auto problems = failure(resolve_vars({spec("a", VarType::string)}, {{"b", "x"}, {"c", 1}},
                                             VarSource::web, fake_env()));
  EXPECT_TRUE(has_problem(problems, "", "vars.b", "unknown var 'b'; declared vars: a"));
  EXPECT_TRUE(has_problem(problems, "", "vars.c", "unknown var 'c'"));
}

TEST(ResolveVars, MissingRequiredNamesTheSources) {
  VarSpec target = spec("target", VarType::string, true);
  target.sources = {VarSource::cli, VarSource::env};
  const auto problems = failure(resolve_vars({target}, {}, VarSource::cli, fake_env()));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "vars.target");
  EXPECT_NE(problems[0].message.find("missing required var 'target'"), std::string::npos);
  EXPECT_NE(problems[0].message.find("--var target="), std::string::npos);
  EXPECT_NE(problems[0].message.find("AGENTRY_VAR_TARGET"), std::string::npos);
}

TEST(ResolveVars, APrepareRequiredVarMayBeMissingUntilThePrepareHooksRan) {
  VarSpec later = spec("worktree_path", VarType::string, true);
  later.required_at_prepare = true;
  const std::vector<VarSpec> specs{later, spec("slug", VarType::string, true)};
  // Only the initial one is required of the request.
  const auto problems = failure(resolve_vars(specs, {}, VarSource::web, fake_env()));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "vars.slug");
  auto resolved = resolve_var_values(specs, {{"slug", "x"}}, VarSource::web, fake_env());
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  EXPECT_TRUE(resolved->values.at("worktree_path").is_null());
  // Checked once the hooks ran: still missing names it.
  auto unset = check_prepare_required_vars(specs, resolved->values);
  ASSERT_FALSE(unset.ok());
  EXPECT_EQ(unset.error().details.at("field"), "vars.worktree_path");
  EXPECT_NE(unset.error().message.find("requiredAt: prepare"), std::string::npos);
  resolved->values["worktree_path"] = "/tmp/wt";
  EXPECT_TRUE(check_prepare_required_vars(specs, resolved->values).ok());
  // Frozen and read back, it keeps its requiredAt.
  auto back = var_specs_from_json(var_specs_to_json(specs));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE((*back)[0].required_at_prepare);
  EXPECT_FALSE((*back)[1].required_at_prepare);
}

TEST(ResolveVars, OptionalVarsWithoutValueAreNull) {
  auto result = resolve_vars({spec("note", VarType::string)}, {}, VarSource::cli, fake_env());
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->at("note").is_null());
}

TEST(ResolveVars, NumbersFromTextOnlyFromCliAndEnv) {
  VarSpec n = spec("n", VarType::number);
  n.sources = {VarSource::cli, VarSource::web, VarSource::env};
  const std::vector<VarSpec> specs{n};
  EXPECT_EQ(resolve_vars(specs, {{"n", "42"}}, VarSource::cli, fake_env())->at("n").as_int64(), 42);
  EXPECT_EQ(resolve_vars(specs, {{"n", "2.5"}}, VarSource::cli, fake_env())->at("n").as_double(), 2.5);
  EXPECT_EQ(resolve_vars(specs, {{"n", 3}}, VarSource::web, fake_env())->at("n").as_int64(), 3);
  EXPECT_TRUE(has_problem(failure(resolve_vars(specs, {{"n", "42"}}, VarSource::web, fake_env())), "", "vars.n",
                          "must be a number, not '42'"));
  EXPECT_TRUE(has_problem(failure(resolve_vars(specs, {{"n", "42abc"}}, VarSource::cli, fake_env())), "", "vars.n",
                          "from cli must be a number"));
  EXPECT_TRUE(has_problem(failure(resolve_vars(specs, {}, VarSource::cli, fake_env({{"AGENTRY_VAR_N", "nan"}}))), "",
                          "vars.n", "from env AGENTRY_VAR_N must be a number"));
}

TEST(ResolveVars, BooleansAcceptWordsAndDigits) {
  VarSpec b = spec("b", VarType::boolean);
  b.sources = {VarSource::cli, VarSource::web, VarSource::env};
  const std::vector<VarSpec> specs{b};
  EXPECT_EQ(resolve_vars(specs, {{"b", true}}, VarSource::web, fake_env())->at("b").as_bool(), true);
  EXPECT_EQ(resolve_vars(specs, {{"b", "false"}}, VarSource::cli, fake_env())->at("b").as_bool(), false);
  EXPECT_EQ(resolve_vars(specs, {{"b", "1"}}, VarSource::cli, fake_env())->at("b").as_bool(), true);
  EXPECT_EQ(resolve_vars(specs, {}, VarSource::cli, fake_env({{"AGENTRY_VAR_B", "0"}}))->at("b").as_bool(), false);
  EXPECT_TRUE(has_problem(failure(resolve_vars(specs, {{"b", "yes"}}, VarSource::cli, fake_env())), "", "vars.b",
                          "true or false"));
}

TEST(ResolveVars, EnumsMustBeOneOfTheValues) {
  VarSpec size = spec("size", VarType::enumeration);
  size.values = {"s", "m"};
  EXPECT_EQ(resolve_vars({size}, {{"size", "m"}}, VarSource::web, fake_env())->at("size").as_string(), "m");
  EXPECT_TRUE(has_problem(failure(resolve_vars({size}, {{"size", "xl"}}, VarSource::web, fake_env())), "",
                          "vars.size", "must be one of s, m, not 'xl'"));
}

TEST(ResolveVars, StringsMustBeStrings) {
  EXPECT_TRUE(has_problem(failure(resolve_vars({spec("s", VarType::string)}, {{"s", 5}}, VarSource::web, fake_env())),
                          "", "vars.s", "must be a string, not a number"));
}

TEST(ResolveVars, ParentValuesAreCheckedToo) {
  const boost::json::object parent{{"n", "5"}};
  VarSpec n = spec("n", VarType::number);
  n.sources = {VarSource::parent};
  EXPECT_TRUE(has_problem(failure(resolve_vars({n}, {}, VarSource::cli, fake_env(), &parent)), "", "vars.n",
                          "from parent must be a number, not the value it has"));
}

TEST(ResolveVars, ValuesFromTheEnvironmentAreNeverQuotedInErrors) {
  VarSpec port = spec("port", VarType::number);
  port.sources = {VarSource::env};
  port.env = "SECRET_PORT";
  VarSpec level = spec("level", VarType::enumeration);
  level.values = {"debug", "info"};
  level.sources = {VarSource::env};
  const auto problems = failure(resolve_vars({port, level}, {}, VarSource::cli,
                                             fake_env({{"SECRET_PORT", "hunter2"}, {"AGENTRY_VAR_LEVEL", "s3cr3t"}})));
  EXPECT_TRUE(has_problem(problems, "", "vars.port", "from env SECRET_PORT must be a number, not the value it has"))
      << testing::dump(problems);
  EXPECT_TRUE(has_problem(problems, "", "vars.level", "must be one of debug, info, not the value it has"));
  EXPECT_EQ(testing::dump(problems).find("hunter2"), std::string::npos);
  EXPECT_EQ(testing::dump(problems).find("s3cr3t"), std::string::npos);
}

TEST(ResolveVars, ReportsEveryProblemAtOnce) {
  auto result = resolve_vars({spec("a", VarType::string, true), spec("b", VarType::number)},
                             {{"b", "x"}, {"c", 1}}, VarSource::web, fake_env());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(problems_of(result.error()).size(), 3u);
}

TEST(VarSpecsJson, RoundTrips) {
  VarSpec size = spec("size", VarType::enumeration, true);
  size.values = {"s", "m"};
  size.default_value = boost::json::value("s");
  size.sources = {VarSource::cli, VarSource::parent};
  size.description = "How big";
  VarSpec count = spec("count", VarType::number);
  count.env = "COUNT";
  count.default_value = boost::json::value(2.5);
  const std::vector<VarSpec> specs{size, count, spec("flag", VarType::boolean)};

  const auto json = var_specs_to_json(specs);
  EXPECT_EQ(boost::json::serialize(json.at("size")),
            R"({"type":"enum","required":true,"requiredAt":"initial","sources":["cli","parent"],"default":"s","values":["s","m"],)"
            R"("description":"How big","env":"AGENTRY_VAR_SIZE","envName":"AGENTRY_VAR_SIZE"})");

  auto back = var_specs_from_json(json);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->size(), 3u);
  EXPECT_EQ((*back)[0].name, "size");
  EXPECT_EQ((*back)[0].values, size.values);
  EXPECT_EQ((*back)[0].sources, size.sources);
  EXPECT_EQ((*back)[0].default_value, size.default_value);
  EXPECT_EQ((*back)[1].env_name(), "COUNT");
  EXPECT_EQ((*back)[1].default_value, count.default_value);
  EXPECT_EQ((*back)[2].type, VarType::boolean);
  EXPECT_EQ(var_specs_to_json(*back), json);

  // A frozen spec that spells it envName (agent-runner's name) reads the same.
  auto renamed = var_specs_from_json(boost::json::object{{"count", {{"envName", "COUNT"}}}});
  ASSERT_TRUE(renamed.ok()) << renamed.error().message;
  EXPECT_EQ((*renamed)[0].env_name(), "COUNT");
}

TEST(VarSpecsJson, RejectsMalformedSpecs) {
  const boost::json::object bad{{"a", {{"type", "colour"}}}, {"b", 5}, {"c", {{"sources", boost::json::array{"cli", "mail"}}}}};
  auto result = var_specs_from_json(bad);
  ASSERT_FALSE(result.ok());
  const auto problems = problems_of(result.error());
  EXPECT_TRUE(has_problem(problems, "", "vars.a.type", "must be string, number, boolean or enum"));
  EXPECT_TRUE(has_problem(problems, "", "vars.b", "must be an object"));
  EXPECT_TRUE(has_problem(problems, "", "vars.c.sources", "cli, web, env or parent"));
}

TEST(VarNames, DefaultEnvNameIsUpperCased) {
  EXPECT_EQ(default_env_name("run_tests"), "AGENTRY_VAR_RUN_TESTS");
  EXPECT_TRUE(is_valid_var_name("_a1"));
  EXPECT_FALSE(is_valid_var_name("1a"));
  EXPECT_FALSE(is_valid_var_name("a-b"));
}

}  // namespace
}  // namespace agentry::definitions
