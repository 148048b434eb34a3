// `agentry usage`, embedded and connected: the same report as GET /api/usage.
#include "cli_fixture.hpp"

#include <fstream>

namespace agentry::integration {
namespace {
namespace json = boost::json;

class UsageCliTest : public CliTest {};

TEST_P(UsageCliTest, ReportsTokensAndCostAndRefusesAnUnknownGrouping) {
  std::ofstream(config_ / "prices.yaml") << "models:\n  priced-model:\n    input: 2\n    cachedInput: 1\n"
                                            "    output: 10\n";
  write_agent("spender", "mock",
              "{steps: [{usage: {inputTokens: 1000, cachedInputTokens: 100, outputTokens: 50, model: priced-model}},"
              " {say: done}]}");
  auto run = cli({"run", "spender", "-m", "go"});
  ASSERT_EQ(run.code, 0) << run.err;
  auto report = cli({"usage", "--json"});
  ASSERT_EQ(report.code, 0) << report.err;
  auto body = json::parse(report.out);
  EXPECT_EQ(body.at("entries").at(0).at("key"), "spender");
  EXPECT_EQ(body.at("total").at("inputTokens").as_int64(), 1000);
  EXPECT_DOUBLE_EQ(body.at("total").at("costUsd").as_double(), (1000 * 2.0 + 100 * 1.0 + 50 * 10.0) / 1e6);
  auto text = cli({"usage", "--by", "day"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("DAY"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("TOTAL"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("$0.0026"), std::string::npos) << text.out;
  auto bad = cli({"usage", "--by", "week"});
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("'by'"), std::string::npos) << bad.err;
}

INSTANTIATE_TEST_SUITE_P(Modes, UsageCliTest, ::testing::Values(CliMode::embedded, CliMode::connected), mode_name);

}  // namespace
}  // namespace agentry::integration
