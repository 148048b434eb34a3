// What the daemon does for its web dashboard: the app shell for deep links with its
// <base href> at the mount, hashed assets, a page that says how to build a missing
// dashboard, routes under AGENTRY_WEB_BASE_PATH, and the timeline paged backwards so a
// long run opens at its end.
#include "daemon_fixture.hpp"

namespace agentry::integration {
namespace {
namespace json = boost::json;

class DashboardServingTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    web_ = dir_.make_dir("web");
    dir_.write_file("web/index.html", "<!doctype html><head><base href=\"/\"></head><div id=app></div>");
    dir_.write_file("web/assets/app-1a2b.js", "console.log(1)");
  }
  void start_with_web(std::vector<std::pair<std::string, std::string>> env = {}) {
    env.emplace_back("AGENTRY_WEB_DIR", web_.string());
    start_daemon(std::move(env));
  }
  std::filesystem::path web_;
};

TEST_F(DashboardServingTest, DeepLinksGetTheAppShellAndAssetsAreCachedForGood) {
  start_with_web();
  for (const char* path : {"/", "/runs/abc", "/runs/abc/diff", "/new"}) {
    auto page = client().get(path);
    ASSERT_EQ(page.status, 200) << path;
    EXPECT_EQ(page.header("content-type"), "text/html; charset=utf-8") << path;
    EXPECT_NE(page.body.find("<base href=\"/\">"), std::string::npos) << path;
    EXPECT_EQ(page.header("cache-control"), "no-cache") << path;
  }
  auto script = client().get("/assets/app-1a2b.js");
  ASSERT_EQ(script.status, 200);
  EXPECT_EQ(script.body, "console.log(1)");
  EXPECT_EQ(script.header("cache-control"), "public, max-age=31536000, immutable");
  // Files that do not exist and API paths that do not exist stay 404 envelopes.
  EXPECT_EQ(error_code_of(client().get("/favicon.ico")), "NOT_FOUND");
  EXPECT_EQ(error_code_of(client().get("/api/nothing")), "NOT_FOUND");
  EXPECT_EQ(error_code_of(client().get("/../secret.txt")), "NOT_FOUND");
}

TEST_F(DashboardServingTest, AnUnbuiltDashboardSaysHowToBuildIt) {
  std::filesystem::remove_all(web_);
  start_with_web();
  auto page = client().get("/runs/abc");
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("npm run build"), std::string::npos);
  EXPECT_EQ(client().get("/api/daemon").status, 200);
}

TEST_F(DashboardServingTest, EveryRouteIsAlsoServedUnderTheWebBasePath) {
  start_with_web({{"AGENTRY_WEB_BASE_PATH", "/agentry/"}});
  EXPECT_EQ(client().get("/agentry/app-config.json").json().at("webBasePath").as_string(), "/agentry");
  EXPECT_EQ(client().get("/app-config.json").json().at("webBasePath").as_string(), "/agentry");
  auto page = client().get("/agentry/runs/abc/tasks");
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("<base href=\"/agentry/\">"), std::string::npos);
  EXPECT_EQ(client().get("/agentry/assets/app-1a2b.js").body, "console.log(1)");
  auto run = create_run("mounted");
  auto detail = client().get("/agentry/api/runs/" + run);
  ASSERT_EQ(detail.status, 200);
  EXPECT_EQ(detail.json().at("run").at("runId").as_string(), run);
  // A prefix that only starts like the mount is not the mount: no API there, only the app.
  EXPECT_EQ(client().get("/agentryx/api/runs/" + run).header("content-type"), "text/html; charset=utf-8");
}

TEST_F(DashboardServingTest, AWebBasePathThatCouldBreakOutOfTheBaseHrefRefusesToStart) {
  daemon_->stop();
  test::DaemonOptions options;
  options.home = home_;
  options.config_dir = config_;
  options.env = {{"AGENTRY_WEB_BASE_PATH", "/x\"><script>"}};
  test::DaemonProcess refused(options);
  EXPECT_THROW(refused.start(), std::exception);
  EXPECT_EQ(refused.exit_code(), 3);
  EXPECT_NE(refused.stderr_text().find("AGENTRY_WEB_BASE_PATH"), std::string::npos);
}

TEST_F(DaemonTest, TheTimelinePagesBackwardsFromItsEnd) {
  write_agent("counter", "mock", "{steps: [{events: 25, kind: notice}]}");
  auto run = start_agent_run("counter");
  ASSERT_EQ(wait_until_settled(run), "success");
  const auto all = timeline(run);
  ASSERT_GE(all.size(), 25u);
  const std::int64_t last = all.back().at("cursor").as_int64();

  auto latest = client().get("/api/runs/" + run + "/timeline?before=latest&limit=10").json().as_object();
  auto events = latest.at("events").as_array();
  ASSERT_EQ(events.size(), 10u);
  EXPECT_EQ(events.back().at("cursor").as_int64(), last);
  EXPECT_EQ(latest.at("lastCursor").as_int64(), last);
  EXPECT_EQ(latest.at("firstCursor").as_int64(), events.front().at("cursor").as_int64());
  for (std::size_t i = 1; i < events.size(); ++i)
    EXPECT_LT(events[i - 1].at("cursor").as_int64(), events[i].at("cursor").as_int64());

  // Paging on from firstCursor meets the start with no gap and no overlap.
  std::vector<std::int64_t> seen;
  for (auto& e : events) seen.push_back(e.at("cursor").as_int64());
  json::value first = latest.at("firstCursor");
  while (!first.is_null()) {
    auto page = client()
                    .get("/api/runs/" + run + "/timeline?before=" + std::to_string(first.as_int64()) + "&limit=7")
                    .json()
                    .as_object();
    auto older = page.at("events").as_array();
    std::vector<std::int64_t> cursors;
    for (auto& e : older) cursors.push_back(e.at("cursor").as_int64());
    seen.insert(seen.begin(), cursors.begin(), cursors.end());
    first = page.at("firstCursor");
  }
  ASSERT_EQ(seen.size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(seen[i], all[i].at("cursor").as_int64());

  EXPECT_EQ(error_code_of(client().get("/api/runs/" + run + "/timeline?before=0")), "INVALID_REQUEST");
  EXPECT_EQ(error_code_of(client().get("/api/runs/" + run + "/timeline?before=soon")), "INVALID_REQUEST");
  auto whole = client().get("/api/runs/" + run + "/audit?limit=5000").json().as_object();
  auto audit = client().get("/api/runs/" + run + "/audit?before=latest&limit=1").json().as_object();
  ASSERT_EQ(audit.at("events").as_array().size(), 1u);
  EXPECT_EQ(audit.at("events").as_array()[0].at("cursor"), whole.at("lastCursor"));
}

}  // namespace
}  // namespace agentry::integration
