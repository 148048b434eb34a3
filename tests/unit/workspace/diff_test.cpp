// Diffs of real git repositories made in temp dirs with the git CLI.
#include "workspace/diff.hpp"

#include "support/git_repo.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <unistd.h>

namespace agentry::workspace {
namespace {
namespace fs = std::filesystem;
using core::ErrorCode;

const DiffFile* find_file(const DiffResult& result, const std::string& path) {
  auto it = std::find_if(result.files.begin(), result.files.end(), [&](const DiffFile& f) { return f.path == path; });
  return it == result.files.end() ? nullptr : &*it;
}

std::string lines(int n, const std::string& prefix) {
  std::string out;
  for (int i = 0; i < n; ++i) out += prefix + " line " + std::to_string(i) + "\n";
  return out;
}

class DiffTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo.commit_files({{"keep.txt", "keep\n"},
                       {"edit.txt", "one\ntwo\nthree\n"},
                       {"staged.txt", "before\n"},
                       {"gone.txt", "bye\n"},
                       {"rename-me.txt", lines(20, "stable")},
                       {"copy-source.txt", lines(20, "source")},
                       {"logo.bin", std::string("\x89PNG\0\0\x01\x02", 8)}},
                      "initial");
  }
  test::TempDir dir;
  test::GitRepo repo{dir.path()};
};

TEST_F(DiffTest, WorkingTreeListsEveryKindOfChange) {
  repo.write_file("edit.txt", "one\n2\nthree\nfour\n");  // unstaged
  repo.write_file("staged.txt", "after\n");
  repo.git({"add", "staged.txt"});
  fs::remove(dir.path() / "gone.txt");
  repo.git({"mv", "rename-me.txt", "renamed.txt"});
  repo.write_file("copy-source.txt", lines(20, "source") + "more\n");
  repo.write_file("copied.txt", lines(20, "source"));
  repo.git({"add", "copied.txt"});
  repo.write_file("new-text.txt", "fresh\nlines\n");
  repo.write_file("logo.bin", std::string("\x89PNG\0\0\x03\x04\x05", 9));

  DiffRequest request;
  auto result = diff_workspace(dir.path(), request, Limits{});
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->mode, "working-tree");
  EXPECT_FALSE(result->truncated);

  auto* edit = find_file(*result, "edit.txt");
  ASSERT_TRUE(edit);
  EXPECT_EQ(edit->status, "modified");
  EXPECT_EQ(edit->additions, 2u);
  EXPECT_EQ(edit->deletions, 1u);
  ASSERT_TRUE(find_file(*result, "staged.txt"));
  EXPECT_EQ(find_file(*result, "gone.txt")->status, "deleted");
  auto* renamed = find_file(*result, "renamed.txt");
  ASSERT_TRUE(renamed);
  EXPECT_EQ(renamed->status, "renamed");
  EXPECT_EQ(renamed->old_path, "rename-me.txt");
  auto* copied = find_file(*result, "copied.txt");
  ASSERT_TRUE(copied);
  EXPECT_EQ(copied->status, "copied");
  EXPECT_EQ(copied->old_path, "copy-source.txt");
  auto* fresh = find_file(*result, "new-text.txt");
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->status, "untracked");
  EXPECT_EQ(fresh->additions, 2u);
  auto* logo = find_file(*result, "logo.bin");
  ASSERT_TRUE(logo);
  EXPECT_TRUE(logo->binary);
  EXPECT_FALSE(logo->additions);
  EXPECT_FALSE(logo->deletions);
  EXPECT_EQ(find_file(*result, "keep.txt"), nullptr);

  EXPECT_NE(result->patch.find("+fresh"), std::string::npos);
  EXPECT_NE(result->patch.find("-two\n+2"), std::string::npos);
  EXPECT_NE(result->patch.find("Binary files"), std::string::npos);
  EXPECT_EQ(result->patch.find("PNG"), std::string::npos);
}

TEST_F(DiffTest, OversizedPatchIsTruncatedAtAFileBoundary) {
  for (int i = 0; i < 10; ++i) repo.write_file("big" + std::to_string(i) + ".txt", lines(200, "big"));
  Limits limits;
  limits.max_patch_bytes = 10000;
  auto result = diff_workspace(dir.path(), DiffRequest{}, limits);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(result->truncated);
  EXPECT_EQ(result->truncated_reason, "patch_bytes");
  EXPECT_LE(result->patch.size(), 10000u);
  EXPECT_EQ(result->files.size(), 10u);  // every file listed, with its stats
  EXPECT_EQ(result->patch.rfind("diff --git", 0), 0u);
  EXPECT_EQ(result->patch.back(), '\n');
  limits.max_diff_files = 3;
  auto few = diff_workspace(dir.path(), DiffRequest{}, limits);
  ASSERT_TRUE(few);
  EXPECT_EQ(few->files.size(), 3u);
  EXPECT_TRUE(few->truncated);
}

TEST_F(DiffTest, BranchModeMergeBaseAndDirect) {
  repo.git({"checkout", "-q", "-b", "feature"});
  repo.commit_files({{"feature.txt", "feature\n"}}, "feature work");
  repo.git({"checkout", "-q", "main"});
  repo.commit_files({{"main-only.txt", "main\n"}}, "main work");
  repo.git({"checkout", "-q", "feature"});

  DiffRequest request;
  request.mode = DiffMode::branch;
  request.base = "main";
  request.head = "HEAD";
  auto merge_base = diff_workspace(dir.path(), request, Limits{});
  ASSERT_TRUE(merge_base) << merge_base.error().message;
  EXPECT_EQ(merge_base->files.size(), 1u);
  EXPECT_EQ(merge_base->files[0].path, "feature.txt");
  EXPECT_FALSE(merge_base->merge_base.empty());

  request.merge_base = false;
  auto direct = diff_workspace(dir.path(), request, Limits{});
  ASSERT_TRUE(direct);
  ASSERT_EQ(direct->files.size(), 2u);
  EXPECT_EQ(find_file(*direct, "main-only.txt")->status, "deleted");
}

TEST_F(DiffTest, AMissingRefIsAClearErrorNotAGuess) {
  DiffRequest request;
  request.mode = DiffMode::branch;
  request.base = "no-such-branch";
  auto result = diff_workspace(dir.path(), request, Limits{});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::not_found);
  EXPECT_EQ(result.error().details.at("ref"), "no-such-branch");
  request.base = "--output=/tmp/x";
  EXPECT_EQ(diff_workspace(dir.path(), request, Limits{}).error().code, ErrorCode::invalid_request);
}

TEST_F(DiffTest, DetachedHeadWorks) {
  const auto first = repo.head();
  repo.commit_files({{"later.txt", "later\n"}}, "later");
  repo.git({"checkout", "-q", "--detach", first});
  repo.write_file("edit.txt", "changed\n");
  auto result = diff_workspace(dir.path(), DiffRequest{}, Limits{});
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->base_commit, first);
  ASSERT_EQ(result->files.size(), 1u);
  DiffRequest branch;
  branch.mode = DiffMode::branch;
  branch.base = "main";
  branch.head = "HEAD";
  branch.merge_base = false;
  auto against_main = diff_workspace(dir.path(), branch, Limits{});
  ASSERT_TRUE(against_main);
  EXPECT_EQ(find_file(*against_main, "later.txt")->status, "deleted");
}

TEST_F(DiffTest, NestedRepositoryIsItsOwnWorkTree) {
  test::GitRepo nested(dir.path() / "vendor-lib");
  nested.commit_files({{"lib.txt", "lib\n"}}, "lib");
  nested.write_file("lib.txt", "lib changed\n");
  auto inner = diff_workspace(dir.path() / "vendor-lib", DiffRequest{}, Limits{});
  ASSERT_TRUE(inner) << inner.error().message;
  ASSERT_EQ(inner->files.size(), 1u);
  EXPECT_EQ(inner->files[0].path, "lib.txt");
  auto outer = diff_workspace(dir.path(), DiffRequest{}, Limits{});
  ASSERT_TRUE(outer) << outer.error().message;
  for (const auto& f : outer->files) EXPECT_NE(f.path, "vendor-lib/lib.txt");
}

TEST_F(DiffTest, ASubdirectoryCwdSeesItsOwnChanges) {
  repo.commit_files({{"pkg/a.txt", "a\n"}, {"other/b.txt", "b\n"}}, "packages");
  repo.write_file("pkg/a.txt", "a2\n");
  repo.write_file("other/b.txt", "b2\n");
  auto result = diff_workspace(dir.path() / "pkg", DiffRequest{}, Limits{});
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->files.size(), 1u);
  EXPECT_EQ(result->files[0].path, "pkg/a.txt");
}

TEST_F(DiffTest, WhatTheReadRoutesRefuseIsListedWithoutItsContent) {
  // The cwd is pkg/: other/ is in the repository but outside the run's cwd.
  repo.commit_files({{"pkg/a.txt", "a\n"}, {"other/secret.txt", "not the run's\n"}}, "packages");
  ASSERT_EQ(::link((dir.path() / "other/secret.txt").c_str(), (dir.path() / "pkg/hard.txt").c_str()), 0);
  fs::create_symlink("../other/secret.txt", dir.path() / "pkg/link-up");
  fs::create_symlink("a.txt", dir.path() / "pkg/link-in");
  for (bool with_patch : {true, false}) {
    DiffRequest request;
    request.with_patch = with_patch;
    auto result = diff_workspace(dir.path() / "pkg", request, Limits{});
    ASSERT_TRUE(result) << result.error().message;
    ASSERT_EQ(result->files.size(), 3u);
    const auto* hard = find_file(*result, "pkg/hard.txt");
    ASSERT_TRUE(hard);
    EXPECT_EQ(hard->omitted_reason, "hardlink");
    EXPECT_FALSE(hard->additions);
    ASSERT_TRUE(find_file(*result, "pkg/link-up"));
    EXPECT_EQ(find_file(*result, "pkg/link-up")->omitted_reason, "outside");
    ASSERT_TRUE(find_file(*result, "pkg/link-in"));
    EXPECT_EQ(find_file(*result, "pkg/link-in")->omitted_reason, std::nullopt);
    EXPECT_EQ(result->totals.additions, 1u);  // the inside link's one line (its target's name)
    EXPECT_EQ(result->patch.find("not the run's"), std::string::npos);
    EXPECT_EQ(result->patch.find("../other"), std::string::npos);
    if (with_patch) {
      EXPECT_NE(result->patch.find("diff --git a/pkg/hard.txt b/pkg/hard.txt\nContent omitted (hardlink)"),
                std::string::npos)
          << result->patch;
      EXPECT_NE(result->patch.find("+a.txt"), std::string::npos) << result->patch;
    }
  }
  // Branch mode compares commits: a file committed through a hard link is the commit's.
  repo.commit_all("link them");
  DiffRequest branch;
  branch.mode = DiffMode::branch;
  branch.base = "HEAD~1";
  branch.merge_base = false;
  auto committed = diff_workspace(dir.path() / "pkg", branch, Limits{});
  ASSERT_TRUE(committed) << committed.error().message;
  ASSERT_TRUE(find_file(*committed, "pkg/hard.txt"));
  EXPECT_EQ(find_file(*committed, "pkg/hard.txt")->omitted_reason, std::nullopt);
}

TEST_F(DiffTest, UnbornBranchShowsEverythingAsNew) {
  test::TempDir fresh_dir;
  test::GitRepo fresh(fresh_dir.path());
  fresh.write_file("first.txt", "first\n");
  auto result = diff_workspace(fresh_dir.path(), DiffRequest{}, Limits{});
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->files.size(), 1u);
  EXPECT_EQ(result->files[0].status, "untracked");
}

TEST(DiffOutsideGit, IsAClearError) {
  test::TempDir plain;
  auto result = diff_workspace(plain.path(), DiffRequest{}, Limits{});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::validation);
  EXPECT_EQ(result.error().details.at("reason"), "not_a_git_work_tree");
}

}  // namespace
}  // namespace agentry::workspace
