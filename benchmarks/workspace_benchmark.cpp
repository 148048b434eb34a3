// Workspace work on a large repository: 10,000 tracked files in 100 directories, 2,000
// of them changed in the work tree (3 lines each), plus a node_modules tree of 5,000
// files the search must skip. Measures the diffs the API answers (working-tree with the
// patch, which the 2 MiB limit truncates; --stat; branch with 2,000 changed files; a
// run's own diff against its baseline), recording a baseline, and a path search.
#include "support/git_repo.hpp"
#include "support/temp_dir.hpp"
#include "workspace/baseline.hpp"
#include "workspace/diff.hpp"
#include "workspace/files.hpp"

#include <benchmark/benchmark.h>

#include <memory>
#include <string>

namespace {
using namespace agentry;
namespace fs = std::filesystem;

constexpr int tracked_files = 10000;
constexpr int changed_files = 2000;

std::string body(int file, int lines, const char* word) {
  std::string out;
  for (int i = 0; i < lines; ++i) out += std::string(word) + " " + std::to_string(file) + " line " + std::to_string(i) + "\n";
  return out;
}

std::string name_of(int i) { return "dir" + std::to_string(i % 100) + "/file" + std::to_string(i) + ".txt"; }

struct LargeRepo {
  test::TempDir dir;
  std::unique_ptr<test::GitRepo> repo;

  LargeRepo() {
    repo = std::make_unique<test::GitRepo>(dir.path());
    for (int i = 0; i < tracked_files; ++i) test::write_file(dir.path() / name_of(i), body(i, 40, "text"));
    repo->commit_all("10,000 files");
    // The same 2,000 changes as a commit on a branch, for branch mode.
    repo->git({"checkout", "-q", "-b", "feature"});
    for (int i = 0; i < changed_files; ++i) change(i);
    repo->commit_all("2,000 changes");
    repo->git({"checkout", "-q", "main"});
    for (int i = 0; i < 5000; ++i)
      test::write_file(dir.path() / ("node_modules/pkg" + std::to_string(i % 50) + "/f" + std::to_string(i) + ".js"), "x\n");
    test::write_file(dir.path() / ".gitignore", "node_modules/\n");
    auto baseline = workspace::record_baseline(dir.path(), "bench-run", std::chrono::seconds(60));
    if (!baseline || !*baseline) throw std::runtime_error("no baseline");
    for (int i = 0; i < changed_files; ++i) change(i);  // the work tree now differs in 2,000 files
  }

  void change(int i) const {
    std::string text = body(i, 40, "text");
    text.replace(text.find("line 5"), 6, "LINE 5");
    text += "added " + std::to_string(i) + "\nadded again\n";
    test::write_file(dir.path() / name_of(i), text);
  }
};

LargeRepo& large_repo() {
  static LargeRepo repo;
  return repo;
}

void report(benchmark::State& state, const workspace::DiffResult& result) {
  state.counters["files"] = static_cast<double>(result.files.size());
  state.counters["patch_KiB"] = static_cast<double>(result.patch.size()) / 1024;
  state.counters["truncated"] = result.truncated ? 1 : 0;
}

void BM_DiffWorkingTree(benchmark::State& state) {
  auto& repo = large_repo();
  workspace::DiffRequest request;
  request.with_patch = state.range(0) == 1;
  workspace::DiffResult last;
  for (auto _ : state) {
    auto result = workspace::diff_workspace(repo.dir.path(), request, workspace::Limits{});
    if (!result) state.SkipWithError(result.error().message.c_str());
    else last = std::move(*result);
  }
  report(state, last);
}
BENCHMARK(BM_DiffWorkingTree)->ArgName("patch")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

void BM_DiffBranch(benchmark::State& state) {
  auto& repo = large_repo();
  workspace::DiffRequest request;
  request.mode = workspace::DiffMode::branch;
  request.base = "main";
  request.head = "feature";
  workspace::DiffResult last;
  for (auto _ : state) {
    auto result = workspace::diff_workspace(repo.dir.path(), request, workspace::Limits{});
    if (!result) state.SkipWithError(result.error().message.c_str());
    else last = std::move(*result);
  }
  report(state, last);
}
BENCHMARK(BM_DiffBranch)->Unit(benchmark::kMillisecond);

void BM_DiffRun(benchmark::State& state) {
  auto& repo = large_repo();
  workspace::DiffRequest request;
  request.mode = workspace::DiffMode::run;
  request.run_id = "bench-run";
  request.with_patch = false;
  workspace::DiffResult last;
  for (auto _ : state) {
    auto result = workspace::diff_workspace(repo.dir.path(), request, workspace::Limits{});
    if (!result) state.SkipWithError(result.error().message.c_str());
    else last = std::move(*result);
  }
  report(state, last);
}
BENCHMARK(BM_DiffRun)->Unit(benchmark::kMillisecond);

void BM_RecordBaseline(benchmark::State& state) {
  auto& repo = large_repo();
  int n = 0;
  for (auto _ : state) {
    auto baseline = workspace::record_baseline(repo.dir.path(), "bench-" + std::to_string(n++), std::chrono::seconds(60));
    if (!baseline || !*baseline) state.SkipWithError("baseline failed");
  }
}
BENCHMARK(BM_RecordBaseline)->Unit(benchmark::kMillisecond);

void BM_Search(benchmark::State& state) {
  auto& repo = large_repo();
  auto root = workspace::Root::open(repo.dir.path());
  workspace::SearchResult last;
  for (auto _ : state) {
    auto found = workspace::search_paths(*root, "file1234", 50, workspace::Limits{});
    if (!found) state.SkipWithError(found.error().message.c_str());
    else last = std::move(*found);
  }
  state.counters["visited"] = static_cast<double>(last.visited);
  state.counters["results"] = static_cast<double>(last.results.size());
}
BENCHMARK(BM_Search)->Unit(benchmark::kMillisecond);

}  // namespace
