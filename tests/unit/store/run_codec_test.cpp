// What a run's frozen inputs become in the store: text that reads back as they were, or a
// refusal that says why (a number JSON cannot write, bytes that are not UTF-8).
#include "store/run_codec.hpp"

#include "store/store_error.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <limits>
#include <tuple>

namespace agentry::store {
namespace {

core::Run run_with(boost::json::object backend_config) {
  core::Run run;
  run.id = "r1";
  run.frozen.agent_name = "coder";
  run.frozen.backend = "mock";
  run.frozen.backend_config = std::move(backend_config);
  run.frozen.vars = {{"feature", "dark mode"}, {"depth", 2.5}};
  return run;
}

TEST(RunCodec, FrozenInputsReadBackAsTheyWere) {
  const auto run = run_with({{"steps", boost::json::array{{{"say", "h\u00e9llo \"there\""}}}}, {"rate", 0.25}});
  const auto text = encode_frozen(run);
  core::Run back;
  decode_frozen(back, text.whole, {});
  EXPECT_FALSE(back.damaged) << *back.damaged;
  EXPECT_EQ(back.frozen.agent_name, "coder");
  EXPECT_EQ(back.frozen.backend_config, run.frozen.backend_config);
  EXPECT_EQ(back.frozen.vars, run.frozen.vars);
  // The summary beside it reads back as a summary of the whole does.
  ASSERT_TRUE(text.summary.has_value());
  core::Run listed;
  decode_frozen_summary(listed, *text.summary, {});
  EXPECT_TRUE(listed.frozen_summary_only);
  EXPECT_EQ(std::tie(listed.frozen.agent_name, listed.frozen.backend), std::tie(run.frozen.agent_name, run.frozen.backend));
}

TEST(RunCodec, ADamagedRunIsWrittenAsItWasWithoutASummary) {
  core::Run run;
  run.id = "r1";
  run.damaged = "its frozen inputs cannot be read: oops";
  run.damaged_frozen_json = "{\"agentName\": oops";
  const auto text = encode_frozen(run);
  EXPECT_EQ(text.whole, run.damaged_frozen_json);
  EXPECT_FALSE(text.summary.has_value());
}

TEST(RunCodec, ANumberJsonCannotWriteIsRefusedWhereverItIs) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& config : {boost::json::object{{"x", inf}}, boost::json::object{{"deep", {{"list", {1, -inf}}}}},
                             boost::json::object{{"n", nan}}}) {
    try {
      (void)encode_frozen(run_with(config));
      ADD_FAILURE() << "stored " << boost::json::serialize(config);
    } catch (const StoreError& e) {
      EXPECT_NE(std::string(e.what()).find("infinite or NaN"), std::string::npos) << e.what();
    }
  }
}

TEST(RunCodec, TextThatIsNotUtf8IsRefused) {
  auto run = run_with({});
  run.frozen.agent_instructions = "ok \xff not";
  EXPECT_THROW((void)encode_frozen(run), StoreError);
}

}  // namespace
}  // namespace agentry::store
