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
    std::ofstream(root_ / "web" / "index.html") << "<h1>hi</h1>";
    std::ofstream(root_ / "web" / "assets" / "app.js") << "1";
    std::ofstream(root_ / "secret.txt") << "secret";
    fs::create_symlink(root_ / "secret.txt", root_ / "web" / "link.txt");
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(StaticFilesTest, ServesFilesWithTheirContentType) {
  auto index = static_file_response(root_ / "web", "/");
  EXPECT_EQ(index.status, 200);
  EXPECT_EQ(index.body, "<h1>hi</h1>");
  EXPECT_EQ(index.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(static_file_response(root_ / "web", "/assets/app.js").content_type, "text/javascript; charset=utf-8");
}

TEST_F(StaticFilesTest, NeverLeavesTheRoot) {
  for (const char* path : {"/../secret.txt", "/%2e%2e/secret.txt", "/link.txt", "/.hidden", "/missing.html"})
    EXPECT_EQ(static_file_response(root_ / "web", path).status, 404) << path;
}

}  // namespace
}  // namespace agentry::api
