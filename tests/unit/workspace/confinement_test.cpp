// The traversal suite: every trick that could lead a workspace path out of the run's
// cwd, each refused; and the ordinary paths that must keep working.
#include "workspace/confinement.hpp"

#include "support/temp_dir.hpp"
#include "workspace/files.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace agentry::workspace {
namespace {
namespace fs = std::filesystem;
using core::ErrorCode;

class ConfinementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cwd = outer.path() / "cwd";
    fs::create_directories(cwd / "src" / "deep");
    test::write_file(cwd / "src" / "main.cpp", "int main() {}\n");
    test::write_file(cwd / "src" / "deep" / "x.txt", "x\n");
    test::write_file(outer.path() / "secret.txt", "top secret\n");
    fs::create_directories(outer.path() / "cwd-sibling");
    test::write_file(outer.path() / "cwd-sibling" / "s.txt", "sibling\n");
    auto opened = Root::open(cwd);
    ASSERT_TRUE(opened) << opened.error().message;
    root.emplace(std::move(*opened));
  }

  /// Every read route refuses `path` without reading anything outside.
  /// `resolvable`: the path itself is fine (a hard link): only reading it is refused.
  void expect_refused(const std::string& path, ErrorCode code = ErrorCode::forbidden, bool resolvable = false) {
    SCOPED_TRACE("path: " + path);
    Limits limits;
    auto resolved = root->resolve(path);
    auto opened = root->open_file(path);
    auto preview = preview_file(*root, path, limits);
    auto raw = read_raw(*root, path, limits);
    auto listed = list_directory(*root, path, limits);
    ASSERT_FALSE(opened);
    ASSERT_FALSE(preview);
    ASSERT_FALSE(raw);
    if (!resolvable) {
      ASSERT_FALSE(listed);
    }
    EXPECT_EQ(preview.error().code, code) << preview.error().message;
    EXPECT_EQ(raw.error().code, code) << raw.error().message;
    if (resolved && !resolvable) {
      EXPECT_NE(code, ErrorCode::forbidden) << "resolve() let " << path << " through";
    }
    EXPECT_EQ(preview.error().message.find("top secret"), std::string::npos);
  }

  test::TempDir outer;
  fs::path cwd;
  std::optional<Root> root;
};

TEST_F(ConfinementTest, NormalizesOrdinaryPaths) {
  EXPECT_EQ(*Root::normalize(""), "");
  EXPECT_EQ(*Root::normalize("."), "");
  EXPECT_EQ(*Root::normalize("./src//main.cpp"), "src/main.cpp");
  EXPECT_EQ(*Root::normalize("src/./deep/"), "src/deep");
  auto preview = preview_file(*root, "src//./main.cpp", Limits{});
  ASSERT_TRUE(preview) << preview.error().message;
  EXPECT_EQ(preview->path, "src/main.cpp");
  EXPECT_EQ(preview->content, "int main() {}\n");
}

TEST_F(ConfinementTest, RefusesParentSegments) {
  for (const char* path : {"..", "../secret.txt", "src/../../secret.txt", "src/..", "./../cwd/src/main.cpp",
                           "src/deep/../../../secret.txt", "../cwd-sibling/s.txt"})
    expect_refused(path);
}

TEST_F(ConfinementTest, RefusesAbsolutePaths) {
  const std::string secret = (outer.path() / "secret.txt").string();
  for (const std::string& path : {std::string("/etc/passwd"), secret, (cwd / "src/main.cpp").string(),
                                  std::string("//etc/passwd")})
    expect_refused(path);
}

TEST_F(ConfinementTest, RefusesBackslashesAndControlCharacters) {
  for (const std::string& path : {std::string("..\\secret.txt"), std::string("src\\..\\..\\secret.txt"),
                                  std::string("src\\main.cpp"), std::string("src/main.cpp\n"),
                                  std::string("src/\x01main.cpp"), std::string("src/main.cpp\0x", 14)})
    expect_refused(path);
}

TEST_F(ConfinementTest, RefusesLeftoverPercentEscapes) {
  for (const char* path : {"%2e%2e/secret.txt", "%2E%2E%2Fsecret.txt", "..%2fsecret.txt", "src%2f..%2f..%2fsecret.txt",
                           "%252e%252e/secret.txt", "src/%00", "%5c..%5csecret.txt"})
    expect_refused(path);
  // A lone percent sign is an ordinary file name character.
  test::write_file(cwd / "100%.txt", "full\n");
  EXPECT_TRUE(preview_file(*root, "100%.txt", Limits{}));
}

TEST_F(ConfinementTest, RefusesSymlinksThatLeadOut) {
  fs::create_symlink(outer.path() / "secret.txt", cwd / "link-to-secret");
  fs::create_symlink("../secret.txt", cwd / "relative-link");
  fs::create_symlink(outer.path(), cwd / "link-to-outer");
  fs::create_symlink("/", cwd / "link-to-root");
  fs::create_symlink(outer.path() / "cwd-sibling", cwd / "src" / "sibling");
  for (const char* path : {"link-to-secret", "relative-link", "link-to-outer/secret.txt", "link-to-outer",
                           "link-to-root/etc/passwd", "link-to-root", "src/sibling/s.txt", "src/sibling"})
    expect_refused(path);
}

TEST_F(ConfinementTest, FollowsSymlinksThatStayInside) {
  fs::create_symlink("src/main.cpp", cwd / "inside-link");
  fs::create_symlink("src", cwd / "src-link");
  auto preview = preview_file(*root, "inside-link", Limits{});
  ASSERT_TRUE(preview) << preview.error().message;
  EXPECT_EQ(preview->path, "src/main.cpp");
  auto listed = list_directory(*root, "src-link", Limits{});
  ASSERT_TRUE(listed) << listed.error().message;
  EXPECT_EQ(listed->path, "src");
}

TEST_F(ConfinementTest, RefusesSymlinkLoopsAndDanglingLinks) {
  fs::create_symlink("loop-b", cwd / "loop-a");
  fs::create_symlink("loop-a", cwd / "loop-b");
  fs::create_symlink(outer.path() / "does-not-exist", cwd / "dangling-out");
  expect_refused("loop-a");
  expect_refused("dangling-out", ErrorCode::not_found);
}

TEST_F(ConfinementTest, RefusesHardLinkedFiles) {
  ASSERT_EQ(::link((outer.path() / "secret.txt").c_str(), (cwd / "hardlink.txt").c_str()), 0);
  expect_refused("hardlink.txt", ErrorCode::forbidden, true);
  // A second name inside the tree is refused just the same: nothing tells them apart.
  ASSERT_EQ(::link((cwd / "src" / "main.cpp").c_str(), (cwd / "second-name.cpp").c_str()), 0);
  expect_refused("src/main.cpp", ErrorCode::forbidden, true);
}

TEST_F(ConfinementTest, ContentRefusalGivesTheReasonOfTheReadRoutes) {
  ASSERT_EQ(::link((outer.path() / "secret.txt").c_str(), (cwd / "hardlink.txt").c_str()), 0);
  fs::create_symlink(outer.path() / "secret.txt", cwd / "link-out");
  fs::create_symlink(outer.path(), cwd / "dir-out");
  fs::create_symlink("src/main.cpp", cwd / "inside-link");
  fs::create_symlink(outer.path() / "does-not-exist", cwd / "dangling-out");
  fs::create_symlink("hardlink.txt", cwd / "link-to-hardlink");  // git shows a link's text, not its target
  EXPECT_EQ(root->content_refusal("hardlink.txt"), "hardlink");
  EXPECT_EQ(root->content_refusal("link-out"), "outside");
  EXPECT_EQ(root->content_refusal("dir-out"), "outside");
  EXPECT_EQ(root->content_refusal("dir-out/secret.txt"), "outside");
  EXPECT_EQ(root->content_refusal("src/main.cpp"), std::nullopt);
  EXPECT_EQ(root->content_refusal("inside-link"), std::nullopt);
  EXPECT_EQ(root->content_refusal("link-to-hardlink"), std::nullopt);
  EXPECT_EQ(root->content_refusal("dangling-out"), std::nullopt);  // nothing there to read
  EXPECT_EQ(root->content_refusal("gone.txt"), std::nullopt);
  // Git's names are not a request's: a percent sign or a backslash in one is just a name.
  test::write_file(cwd / "100%2e.txt", "x\n");
  EXPECT_EQ(root->content_refusal("100%2e.txt"), std::nullopt);
}

TEST_F(ConfinementTest, MissingPathsAreNotFound) {
  expect_refused("nope.txt", ErrorCode::not_found);
  expect_refused("src/nope/deeper.txt", ErrorCode::not_found);
  expect_refused("src/main.cpp/child", ErrorCode::not_found);
}

TEST_F(ConfinementTest, ContainsComparesWholeSegments) {
  EXPECT_TRUE(root->contains(root->path()));
  EXPECT_TRUE(root->contains(root->path() / "a"));
  EXPECT_FALSE(root->contains(fs::path(root->path().string() + "-sibling")));
  EXPECT_FALSE(root->contains(root->path().parent_path()));
}

TEST_F(ConfinementTest, AnEscapeCountOfZero) {
  // Every trick above in one table; each must fail, none may read the secret.
  fs::create_symlink(outer.path() / "secret.txt", cwd / "l1");
  fs::create_symlink(outer.path(), cwd / "l2");
  ASSERT_EQ(::link((outer.path() / "secret.txt").c_str(), (cwd / "h1").c_str()), 0);
  const std::vector<std::string> tricks = {
      "../secret.txt", "src/../../secret.txt", "/" + (outer.path() / "secret.txt").string().substr(1),
      "%2e%2e/secret.txt", "..%2fsecret.txt", "..\\secret.txt", "l1", "l2/secret.txt", "h1",
      "./../secret.txt", "src/deep/../../../secret.txt", "%2E%2E%5Csecret.txt"};
  int escapes = 0;
  for (const auto& trick : tricks) {
    auto preview = preview_file(*root, trick, Limits{});
    auto raw = read_raw(*root, trick, Limits{});
    if (preview || raw) ++escapes;
  }
  EXPECT_EQ(escapes, 0);
}

TEST(RootOpen, RefusesMissingOrRelativeCwd) {
  EXPECT_FALSE(Root::open("relative/path"));
  EXPECT_FALSE(Root::open("/no/such/agentry/dir"));
  test::TempDir dir;
  test::write_file(dir.path() / "f", "x");
  EXPECT_FALSE(Root::open(dir.path() / "f"));
}

}  // namespace
}  // namespace agentry::workspace
