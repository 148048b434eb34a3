#include "api/static_files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace agentry::api {
namespace {
namespace fs = std::filesystem;

class StaticFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("agentry-static-" + std::to_string(std::random_device{}()));
    fs::create_directories(root_ / "web" / "assets");
    std::ofstream(root_ / "web" / "index.html") << "<head><base href=\"/\"></head><h1>hi</h1>";
    std::ofstream(root_ / "web" / "assets" / "app.js") << "1";
    std::ofstream(root_ / "secret.txt") << "secret";
    fs::create_symlink(root_ / "secret.txt", root_ / "web" / "link.txt");
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(StaticFilesTest, ServesFilesWithTheirContentTypeAndCachePolicy) {
  auto index = static_file_response(root_ / "web", "/index.html");
  EXPECT_EQ(index.status, 200);
  EXPECT_EQ(index.content_type, "text/html; charset=utf-8");
  auto script = static_file_response(root_ / "web", "/assets/app.js");
  EXPECT_EQ(script.content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(script.body, "1");
  ASSERT_EQ(script.headers.size(), 1u);
  EXPECT_EQ(script.headers[0].second, "public, max-age=31536000, immutable");
  EXPECT_EQ(index.headers[0].second, "no-cache");
}

// The installable dashboard: a browser ignores a manifest served with another type, and
// sw.js must not be kept by caches, or a new service worker is not seen.
TEST_F(StaticFilesTest, ServesTheManifestIconsAndServiceWorkerForInstalling) {
  std::ofstream(root_ / "web" / "manifest.webmanifest") << "{}";
  std::ofstream(root_ / "web" / "sw.js") << "'use strict';";
  std::ofstream(root_ / "web" / "icon-192.png") << "png";
  auto manifest = static_file_response(root_ / "web", "/manifest.webmanifest");
  EXPECT_EQ(manifest.status, 200);
  EXPECT_EQ(manifest.content_type, "application/manifest+json");
  auto worker = static_file_response(root_ / "web", "/sw.js");
  EXPECT_EQ(worker.content_type, "text/javascript; charset=utf-8");
  ASSERT_EQ(worker.headers.size(), 1u);
  EXPECT_EQ(worker.headers[0].second, "no-cache");
  EXPECT_EQ(static_file_response(root_ / "web", "/icon-192.png").content_type, "image/png");
}

TEST_F(StaticFilesTest, TheAppShellPointsItsBaseAtTheMount) {
  EXPECT_EQ(app_shell_response(root_ / "web", "").body, "<head><base href=\"/\"></head><h1>hi</h1>");
  EXPECT_EQ(app_shell_response(root_ / "web", "/agentry").body,
            "<head><base href=\"/agentry/\"></head><h1>hi</h1>");
}

TEST_F(StaticFilesTest, AnUnbuiltDashboardSaysHowToBuildIt) {
  auto page = app_shell_response(root_ / "nothing-here", "");
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("npm run build"), std::string::npos);
}

TEST(AppRoutes, DeepLinksAreTheAppsAndFilesAndTheApiAreNot) {
  for (const char* path : {"/runs/abc", "/runs/abc/diff", "/new", "/definitions"}) EXPECT_TRUE(is_app_route(path)) << path;
  for (const char* path : {"/api", "/api/runs", "/favicon.ico", "/assets/app.js"}) EXPECT_FALSE(is_app_route(path)) << path;
}

TEST_F(StaticFilesTest, NeverLeavesTheRoot) {
  for (const char* path : {"/", "/../secret.txt", "/%2e%2e/secret.txt", "/link.txt", "/.hidden", "/missing.html"})
    EXPECT_EQ(static_file_response(root_ / "web", path).status, 404) << path;
}

}  // namespace
}  // namespace agentry::api
