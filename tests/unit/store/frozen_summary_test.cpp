// The streaming read of a run's frozen inputs for listings agrees with the whole read
// on every field it fills, whatever the text holds, and reads the summary a row keeps
// beside the whole back to the same values.
#include "store/frozen_summary.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

namespace agentry::store {
namespace {

core::FrozenInputs whole(const std::string& text) { return core::frozen_inputs_from_json(boost::json::parse(text)); }

void expect_same_summary(const core::FrozenInputs& summary, const core::FrozenInputs& all) {
  EXPECT_EQ(summary.agent_name, all.agent_name);
  EXPECT_EQ(summary.assignment_name, all.assignment_name);
  EXPECT_EQ(summary.backend, all.backend);
  EXPECT_EQ(summary.model, all.model);
  EXPECT_EQ(summary.max_attempts_per_session, all.max_attempts_per_session);
  EXPECT_EQ(summary.locked_fields, all.locked_fields);
  EXPECT_EQ(summary.hooks_not_imported, all.hooks_not_imported);
  EXPECT_EQ(summary.hooks.size(), all.hooks.size());
}

void expect_agrees(const std::string& text) {
  SCOPED_TRACE(text);
  core::FrozenInputs summary;
  ASSERT_TRUE(read_frozen_summary(text, summary));
  expect_same_summary(summary, whole(text));
}

void expect_written_summary_reads_back(const core::FrozenInputs& in) {
  const auto text = write_frozen_summary(in);
  SCOPED_TRACE(text);
  core::FrozenInputs summary;
  ASSERT_TRUE(read_frozen_summary(text, summary));
  expect_same_summary(summary, in);
}

core::FrozenInputs real_inputs() {
  core::FrozenInputs in;
  in.agent_name = "coder";
  in.assignment_name = "implement-feature";
  in.backend = "claude";
  in.model = "opus";
  in.max_attempts_per_session = 7;
  in.agent_instructions = std::string(5000, 'x') + "\"quoted\" \\ and \u00e9 and \n newlines";
  in.vars = {{"agentName", "not the agent"}, {"nested", {{"backend", "not the backend"}}}};
  in.task_templates = boost::json::array{boost::json::object{{"id", "t1"}, {"title", "T"}, {"body", ""}}};
  in.locked_fields = {"tasks", "vars"};
  in.hooks.resize(3);
  in.hooks[0].id = "a";
  in.hooks_not_imported = {"afterAttempt:x (why)"};
  return in;
}

TEST(FrozenSummary, AgreesWithTheWholeReadOfRealInputs) {
  expect_agrees(boost::json::serialize(core::to_json(real_inputs())));
  expect_agrees(boost::json::serialize(core::to_json(core::FrozenInputs{})));
}

TEST(FrozenSummary, TheSummaryWrittenBesideTheWholeReadsBackTheSame) {
  expect_written_summary_reads_back(real_inputs());
  expect_written_summary_reads_back(core::FrozenInputs{});
  core::FrozenInputs odd;
  odd.agent_name = "a\"b\u00e9\xF0\x9F\x98\x80";
  odd.model = "{\"hooks\": [1, 2]}";
  odd.locked_fields = {"", "lockedFields"};
  expect_written_summary_reads_back(odd);
}

TEST(FrozenSummary, AgreesOnOddShapes) {
  expect_agrees(R"({"agentName": "a\"b\u00e9\ud83d\ude00", "backend": 3, "model": null})");
  expect_agrees(R"({"agentName": "first", "agentName": "second"})");
  expect_agrees(R"({"maxAttemptsPerSession": 2.5, "lockedFields": "tasks"})");
  expect_agrees(R"({"maxAttemptsPerSession": 9, "lockedFields": ["a", 1, ["b"], {"c": "d"}, "e"]})");
  expect_agrees(R"({"hooks": {"id": "x"}, "hooksNotImported": [], "vars": {"hooks": [1, 2]}})");
  expect_agrees(R"({"hooks": [{"id": "x", "run": ["a", "b"]}, {"id": "y"}], "model": "m"})");
  expect_agrees(R"(["agentName", "coder"])");
  expect_agrees(R"("just text")");
  expect_agrees(R"(  {"backend": "mock"}  )");
}

TEST(FrozenSummary, RefusesWhatIsNotJson) {
  core::FrozenInputs out;
  EXPECT_FALSE(read_frozen_summary(R"({"agentName": oops)", out));
  EXPECT_FALSE(read_frozen_summary(R"({"agentName": "a"} trailing)", out));
  EXPECT_FALSE(read_frozen_summary("", out));
  EXPECT_FALSE(read_frozen_summary(std::string(40, '[') + std::string(40, ']'), out));  // deeper than a whole read takes
}

}  // namespace
}  // namespace agentry::store
