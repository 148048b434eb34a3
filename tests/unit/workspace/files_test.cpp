#include "workspace/files.hpp"

#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace agentry::workspace {
namespace {
namespace fs = std::filesystem;
using core::ErrorCode;

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir.write_file("README.md", "# hello\n");
    dir.write_file("src/app.cpp", "int app;\n");
    dir.write_file("src/util/strings.cpp", "// strings\n");
    dir.write_file(".config/app.toml", "x = 1\n");
    dir.write_file("node_modules/left-pad/app.js", "module.exports = 1;\n");
    dir.write_file(".git/app-config", "[core]\n");
    root.emplace(std::move(*Root::open(dir.path())));
  }
  test::TempDir dir;
  std::optional<Root> root;
};

TEST_F(FilesTest, ListsDirectoriesFirstThenNames) {
  auto listing = list_directory(*root, "", Limits{});
  ASSERT_TRUE(listing) << listing.error().message;
  std::vector<std::string> names;
  for (const auto& e : listing->entries) names.push_back(e.name + ":" + e.type);
  EXPECT_EQ(names, (std::vector<std::string>{".config:directory", ".git:directory", "node_modules:directory",
                                             "src:directory", "README.md:file"}));
  EXPECT_EQ(listing->entries.back().size, 8u);
  EXPECT_FALSE(listing->truncated);
  auto sub = list_directory(*root, "src", Limits{});
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->entries.front().path, "src/util");
}

TEST_F(FilesTest, ListingIsBounded) {
  Limits limits;
  limits.max_list_entries = 2;
  auto listing = list_directory(*root, "", limits);
  ASSERT_TRUE(listing);
  EXPECT_EQ(listing->entries.size(), 2u);
  EXPECT_TRUE(listing->truncated);
}

TEST_F(FilesTest, ListingAFileIsRefused) {
  auto listing = list_directory(*root, "README.md", Limits{});
  ASSERT_FALSE(listing);
  EXPECT_EQ(listing.error().code, ErrorCode::validation);
}

TEST_F(FilesTest, SearchSkipsDependencyDirectoriesButNotDotDirectories) {
  auto found = search_paths(*root, "APP", 0, Limits{});
  ASSERT_TRUE(found) << found.error().message;
  std::vector<std::string> paths;
  for (const auto& e : found->results) paths.push_back(e.path);
  EXPECT_EQ(paths, (std::vector<std::string>{".config/app.toml", "src/app.cpp"}));
  EXPECT_FALSE(found->truncated);
}

TEST_F(FilesTest, SearchReportsTruncation) {
  for (int i = 0; i < 20; ++i) dir.write_file("many/file" + std::to_string(i) + ".txt", "x");
  auto found = search_paths(*root, "file", 5, Limits{});
  ASSERT_TRUE(found);
  EXPECT_EQ(found->results.size(), 5u);
  EXPECT_TRUE(found->truncated);
  EXPECT_EQ(found->truncated_reason, "limit");
  Limits few;
  few.max_search_visited = 3;
  auto cut = search_paths(*root, "file", 50, few);
  ASSERT_TRUE(cut);
  EXPECT_TRUE(cut->truncated);
  EXPECT_EQ(cut->truncated_reason, "visited");
}

TEST_F(FilesTest, SearchNeedsAQueryAndASaneLimit) {
  EXPECT_EQ(search_paths(*root, "", 0, Limits{}).error().code, ErrorCode::invalid_request);
  EXPECT_EQ(search_paths(*root, "x", 100000, Limits{}).error().code, ErrorCode::invalid_request);
}

TEST_F(FilesTest, SearchDoesNotFollowSymlinkedDirectories) {
  test::TempDir outside;
  outside.write_file("app-outside.txt", "x");
  fs::create_symlink(outside.path(), dir.path() / "out");
  auto found = search_paths(*root, "outside", 0, Limits{});
  ASSERT_TRUE(found);
  EXPECT_TRUE(found->results.empty());
}

TEST_F(FilesTest, PreviewAnswersUtf8Text) {
  dir.write_file("unicode.txt", "h\xC3\xA9llo \xE2\x9C\x93\n");
  auto preview = preview_file(*root, "unicode.txt", Limits{});
  ASSERT_TRUE(preview) << preview.error().message;
  EXPECT_EQ(preview->content, "h\xC3\xA9llo \xE2\x9C\x93\n");
  EXPECT_EQ(preview->size, 11u);
}

TEST_F(FilesTest, PreviewRefusesBinaryInvalidUtf8AndOversizedFiles) {
  dir.write_file("image.png", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
  dir.write_file("latin1.txt", "caf\xE9\n");
  dir.write_file("big.txt", std::string(2000, 'a'));
  auto binary = preview_file(*root, "image.png", Limits{});
  ASSERT_FALSE(binary);
  EXPECT_EQ(binary.error().code, ErrorCode::validation);
  EXPECT_EQ(binary.error().details.at("reason"), "binary");
  auto latin1 = preview_file(*root, "latin1.txt", Limits{});
  ASSERT_FALSE(latin1);
  EXPECT_EQ(latin1.error().details.at("reason"), "invalid_utf8");
  Limits small;
  small.max_preview_bytes = 1000;
  auto big = preview_file(*root, "big.txt", small);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().code, ErrorCode::payload_too_large);
  auto directory = preview_file(*root, "src", Limits{});
  ASSERT_FALSE(directory);
  EXPECT_EQ(directory.error().details.at("reason"), "directory");
}

TEST_F(FilesTest, RawReadsAnyBytes) {
  const std::string bytes("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  dir.write_file("img/image.png", bytes);
  auto raw = read_raw(*root, "img/image.png", Limits{});
  ASSERT_TRUE(raw) << raw.error().message;
  EXPECT_EQ(raw->bytes, bytes);
  EXPECT_EQ(raw->name, "image.png");
  Limits small;
  small.max_raw_bytes = 4;
  EXPECT_EQ(read_raw(*root, "img/image.png", small).error().code, ErrorCode::payload_too_large);
}

TEST_F(FilesTest, SpecialFilesAreRefused) {
  ASSERT_EQ(::mkfifo((dir.path() / "fifo").c_str(), 0600), 0);
  auto preview = preview_file(*root, "fifo", Limits{});
  ASSERT_FALSE(preview);
  EXPECT_EQ(preview.error().details.at("reason"), "special_file");
}

}  // namespace
}  // namespace agentry::workspace
