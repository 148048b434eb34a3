// GET /api/openapi.json over the real daemon: docs/openapi.yaml as JSON (compiled in),
// describing this very route and every run route; its query is checked like any other,
// and it is protected like the rest of /api/. The document's contract with every other
// route is tests/browser/openapi.test.mjs's.
#include "daemon_fixture.hpp"

namespace agentry::integration {
namespace {

namespace json = boost::json;

TEST_F(DaemonTest, OpenApiDocumentIsServedAsJson) {
  start_daemon();
  auto response = client().get("/api/openapi.json");
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(response.header("content-type"), "application/json");
  auto doc = json::parse(response.body).as_object();
  EXPECT_EQ(doc.at("openapi"), "3.1.0");
  const auto& paths = doc.at("paths").as_object();
  EXPECT_TRUE(paths.contains("/api/openapi.json"));
  EXPECT_TRUE(paths.at("/api/runs/{runId}").as_object().contains("get"));
  // Plain YAML scalars keep their types: a limit is a number, a quoted status a key.
  const auto& limit = paths.at("/api/runs").at("get").at("parameters").as_array()[5].as_object();
  EXPECT_EQ(limit.at("name"), "limit");
  EXPECT_EQ(limit.at("schema").at("maximum"), 500);
  EXPECT_TRUE(doc.at("components").at("schemas").as_object().contains("Error"));
}

TEST_F(DaemonTest, OpenApiDocumentRefusesAQueryAndNeedsTheToken) {
  start_daemon({{"AGENTRY_DAEMON_AUTH_ENABLED", "true"}, {"AGENTRY_DAEMON_TOKEN", "openapi-token"}});
  EXPECT_EQ(client().get("/api/openapi.json").status, 401);
  test::Headers auth{{"Authorization", "Bearer openapi-token"}};
  auto refused = client().get("/api/openapi.json?x=1", auth);
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(error_code_of(refused), "INVALID_REQUEST");
  EXPECT_EQ(client().get("/api/openapi.json", auth).status, 200);
}

}  // namespace
}  // namespace agentry::integration
