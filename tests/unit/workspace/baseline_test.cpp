// A run's baseline keeps the user's uncommitted state, so the run's own diff is exact.
#include "workspace/baseline.hpp"

#include "support/git_repo.hpp"
#include "support/temp_dir.hpp"
#include "workspace/diff.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace agentry::workspace {
namespace {
namespace fs = std::filesystem;

TEST(Baseline, RunDiffIsExactOnADirtyTreeAndTheUserStateIsUntouched) {
  test::TempDir dir;
  test::GitRepo repo(dir.path());
  repo.commit_files({{"a.txt", "a\n"}, {"b.txt", "b\n"}, {"c.txt", "c\n"}}, "initial");
  repo.write_file(".gitignore", "ignored/\n");
  // The user's own uncommitted work before the run starts.
  repo.write_file("a.txt", "a edited by the user\n");
  repo.write_file("b.txt", "b staged by the user\n");
  repo.git({"add", "b.txt"});
  repo.write_file("user-new.txt", "user's untracked file\n");
  repo.write_file("ignored/cache.txt", "ignored\n");
  const std::string status_before = repo.git({"status", "--porcelain=v1"});
  const std::string head_before = repo.head();
  const std::string index_before = test::read_file(dir.path() / ".git" / "index");

  auto baseline = record_baseline(dir.path(), "run1");
  ASSERT_TRUE(baseline) << baseline.error().message;
  ASSERT_TRUE(*baseline);
  EXPECT_TRUE((*baseline)->created);
  EXPECT_EQ(repo.git({"rev-parse", "refs/agentry/runs/run1/base"}), (*baseline)->commit + "\n");
  EXPECT_EQ(repo.git({"status", "--porcelain=v1"}), status_before);
  EXPECT_EQ(repo.head(), head_before);
  EXPECT_EQ(test::read_file(dir.path() / ".git" / "index"), index_before);
  EXPECT_EQ(repo.git({"show", (*baseline)->commit + ":a.txt"}), "a edited by the user\n");
  EXPECT_EQ(repo.git({"show", (*baseline)->commit + ":user-new.txt"}), "user's untracked file\n");
  EXPECT_NE(repo.try_git({"show", (*baseline)->commit + ":ignored/cache.txt"}).exit_code, 0);

  // Nothing changed yet: the run's diff is empty even though the tree is dirty.
  DiffRequest request;
  request.mode = DiffMode::run;
  request.run_id = "run1";
  auto empty = diff_workspace(dir.path(), request, Limits{});
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_TRUE(empty->files.empty()) << empty->patch;

  // The run's changes, only those.
  repo.write_file("c.txt", "c changed by the run\n");
  repo.write_file("run-new.txt", "from the run\n");
  fs::remove(dir.path() / "user-new.txt");
  auto changed = diff_workspace(dir.path(), request, Limits{});
  ASSERT_TRUE(changed) << changed.error().message;
  ASSERT_EQ(changed->files.size(), 3u) << changed->patch;
  EXPECT_EQ(changed->files[0].path, "c.txt");
  EXPECT_EQ(changed->files[1].path, "run-new.txt");
  EXPECT_EQ(changed->files[2].path, "user-new.txt");
  EXPECT_EQ(changed->files[2].status, "deleted");
  auto stat = run_diffstat(dir.path(), "run1", Limits{});
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->files, 3u);
  EXPECT_EQ(stat->additions, 2u);
  EXPECT_EQ(stat->deletions, 2u);

  // Staging the run's change does not hide it; restoring a file to its baseline
  // content (though it differs from the index) does.
  repo.git({"add", "c.txt", "run-new.txt"});
  repo.write_file("b.txt", "b\n");              // the index holds the user's staged text
  repo.write_file("b.txt", "b staged by the user\n");  // back to the baseline
  repo.write_file("a.txt", "a\n");                      // HEAD's text: differs from the baseline
  auto staged = diff_workspace(dir.path(), request, Limits{});
  ASSERT_TRUE(staged) << staged.error().message;
  std::vector<std::string> paths;
  for (const auto& f : staged->files) paths.push_back(f.path + ":" + f.status);
  EXPECT_EQ(paths, (std::vector<std::string>{"a.txt:modified", "c.txt:modified", "run-new.txt:added",
                                             "user-new.txt:deleted"}));

  // A second start keeps the first baseline.
  auto again = record_baseline(dir.path(), "run1");
  ASSERT_TRUE(again && *again);
  EXPECT_FALSE((*again)->created);
  EXPECT_EQ((*again)->commit, (*baseline)->commit);

  remove_baseline(dir.path(), "run1");
  EXPECT_NE(repo.try_git({"rev-parse", "--verify", "-q", "refs/agentry/runs/run1/base"}).exit_code, 0);
}

TEST(Baseline, UnbornBranchAndNoRepository) {
  test::TempDir dir;
  test::GitRepo repo(dir.path());
  repo.write_file("first.txt", "first\n");
  auto baseline = record_baseline(dir.path(), "run2");
  ASSERT_TRUE(baseline) << baseline.error().message;
  ASSERT_TRUE(*baseline);
  repo.write_file("second.txt", "second\n");
  auto stat = run_diffstat(dir.path(), "run2", Limits{});
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->files, 1u);

  test::TempDir plain;
  auto none = record_baseline(plain.path(), "run3");
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  EXPECT_FALSE(run_diffstat(plain.path(), "run3", Limits{}));
}

}  // namespace
}  // namespace agentry::workspace
