// `agentry triggers list`, embedded and connected: each trigger of the config directory,
// its route, and whether its secret is set (never the secret).
#include "cli_fixture.hpp"

#include <boost/json/parse.hpp>

namespace agentry::integration {
namespace {

class TriggerCliTest : public CliTest {};

TEST_P(TriggerCliTest, TriggersListShowsEachTriggerAndWhetherItsSecretIsSet) {
  const test::EnvOverrides secret{{"AGENTRY_TEST_CLI_TRIGGER_SECRET", "cli-secret-value"}};
  dir_.write_file("config/triggers/issues.yaml", "schemaVersion: 1\nassignment: feature\nagent: worker\n"
                                                 "secretEnv: AGENTRY_TEST_CLI_TRIGGER_SECRET\n");
  dir_.write_file("config/triggers/unsigned.yaml", "schemaVersion: 1\nassignment: feature\nagent: worker\n"
                                                   "secretEnv: AGENTRY_TEST_CLI_TRIGGER_UNSET\n");
  if (connected()) start_daemon(secret);  // the daemon's environment is the one that counts
  auto table = cli({"triggers", "list"}, secret);
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("POST /api/triggers/issues"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("AGENTRY_TEST_CLI_TRIGGER_UNSET (not set)"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("AGENTRY_TEST_CLI_TRIGGER_SECRET (not set)"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("cli-secret-value"), std::string::npos);

  auto listed = cli({"triggers", "list", "--json"}, secret);
  ASSERT_EQ(listed.code, 0) << listed.err;
  const auto body = boost::json::parse(listed.out);
  const auto& triggers = body.at("triggers").as_array();
  ASSERT_EQ(triggers.size(), 2u) << listed.out;
  EXPECT_EQ(triggers[0].at("name"), boost::json::value("issues"));
  EXPECT_EQ(triggers[0].at("secretSet"), boost::json::value(true));
  EXPECT_EQ(triggers[1].at("secretSet"), boost::json::value(false));
}

INSTANTIATE_TEST_SUITE_P(Modes, TriggerCliTest, ::testing::Values(CliMode::embedded, CliMode::connected), mode_name);

}  // namespace
}  // namespace agentry::integration
