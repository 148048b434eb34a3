// `agentry files` and `agentry diff` in both modes (embedded and connected), on a real
// git repository with the user's uncommitted work in it.
#include "cli_fixture.hpp"
#include "support/git_repo.hpp"

#include <boost/json.hpp>

namespace agentry::integration {
namespace {
namespace json = boost::json;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class WorkspaceCliTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    repo = std::make_unique<test::GitRepo>(work_);
    repo->commit_files({{"README.md", "# project\n"}, {"src/app.cpp", "int main() {}\n"}}, "initial");
    repo->write_file("README.md", "# project, the user's edit\n");  // there before the run
    write_agent("editor", "mock",
                "{steps: [{exec: ['/bin/sh', '-c', 'printf \"new\\\\n\" > run-file.txt; printf \"x\\\\n\" >> "
                "src/app.cpp']}, {say: done}]}");
  }
  std::string start_editor() {
    auto r = cli({"run", "editor", "-m", "edit", "--json"});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    // --json prints the operation's results, one per line; the first carries the run.
    auto first = r.out.substr(0, r.out.find('\n'));
    auto v = json::parse(first);
    return std::string(v.at("runId").as_string());
  }
  std::unique_ptr<test::GitRepo> repo;
};

TEST_P(WorkspaceCliTest, DiffShowsWhatTheRunChangedOnly) {
  const std::string id = start_editor();
  ASSERT_FALSE(id.empty());
  wait_for_run(id, [](const json::object& r) { return r.at("status") == "success"; });

  auto stat = cli({"diff", id, "--stat"});
  ASSERT_EQ(stat.code, 0) << stat.err;
  EXPECT_TRUE(contains(stat.out, "run-file.txt")) << stat.out;
  EXPECT_TRUE(contains(stat.out, "src/app.cpp")) << stat.out;
  EXPECT_FALSE(contains(stat.out, "README.md")) << stat.out;  // the user's edit, before the run
  EXPECT_TRUE(contains(stat.out, "2 files changed, 2 insertions(+), 0 deletions(-)")) << stat.out;
  EXPECT_FALSE(contains(stat.out, "\x1b[")) << "no colour when not a terminal";

  auto patch = cli({"diff", id, "--color", "always"});
  ASSERT_EQ(patch.code, 0) << patch.err;
  EXPECT_TRUE(contains(patch.out, "\x1b[32m+new\x1b[0m")) << patch.out;

  auto tree = cli({"diff", id, "--mode", "working-tree", "--stat"});
  ASSERT_EQ(tree.code, 0) << tree.err;
  EXPECT_TRUE(contains(tree.out, "README.md")) << tree.out;

  auto json_out = cli({"diff", id, "--json"});
  ASSERT_EQ(json_out.code, 0) << json_out.err;
  EXPECT_EQ(json::parse(json_out.out).at("mode"), "run");

  auto missing = cli({"diff", id, "--mode", "branch", "--base", "no-such-branch"});
  EXPECT_EQ(missing.code, 3);
  EXPECT_TRUE(contains(missing.err, "no-such-branch")) << missing.err;
}

TEST_P(WorkspaceCliTest, FilesListsSearchesAndShows) {
  const std::string id = start_editor();
  ASSERT_FALSE(id.empty());
  wait_for_run(id, [](const json::object& r) { return r.at("status") == "success"; });

  auto listing = cli({"files", id});
  ASSERT_EQ(listing.code, 0) << listing.err;
  EXPECT_TRUE(contains(listing.out, "src/")) << listing.out;
  EXPECT_TRUE(contains(listing.out, "README.md")) << listing.out;
  auto sub = cli({"files", id, "src"});
  EXPECT_TRUE(contains(sub.out, "app.cpp")) << sub.out;
  auto found = cli({"files", id, "--search", "APP"});
  ASSERT_EQ(found.code, 0) << found.err;
  EXPECT_EQ(found.out, "src/app.cpp\n");
  auto shown = cli({"files", id, "--show", "run-file.txt"});
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_EQ(shown.out, "new\n");
  auto refused = cli({"files", id, "--show", "../outside.txt"});
  EXPECT_EQ(refused.code, 3);
  EXPECT_TRUE(contains(refused.err, "refused")) << refused.err;
}

INSTANTIATE_TEST_SUITE_P(Modes, WorkspaceCliTest, ::testing::Values(CliMode::embedded, CliMode::connected),
                         mode_name);

}  // namespace
}  // namespace agentry::integration
