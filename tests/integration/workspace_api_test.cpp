// The workspace routes over the real daemon, against real git repositories made in temp
// dirs: files, search, preview, raw download, diffs in every mode, a run's own diff and
// diffstat, the traversal suite over HTTP, and WebSocket parity.
#include "daemon_fixture.hpp"
#include "support/git_repo.hpp"
#include "support/ws_client.hpp"

#include <unistd.h>

#include <filesystem>
#include <thread>

namespace agentry::integration {
namespace {
namespace fs = std::filesystem;
namespace json = boost::json;

std::string encode(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

const json::object* file_entry(const json::value& diff, const std::string& path) {
  for (const auto& f : diff.at("files").as_array())
    if (f.at("path").as_string() == path) return &f.as_object();
  return nullptr;
}

class WorkspaceApiTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    repo = std::make_unique<test::GitRepo>(work_);
    repo->commit_files({{"README.md", "# project\n"},
                        {"src/app.cpp", "int main() { return 0; }\n"},
                        {"old-name.txt", "a\nb\nc\nd\ne\nf\ng\nh\n"},
                        {"logo.bin", std::string("\x89PNG\0\0\x01", 7)}},
                       "initial");
    test::write_file(dir_.path() / "secret.txt", "top secret\n");
  }
  /// The run's detail once its diffstat is written (when the attempt ends; the status
  /// may settle first), or as it is after 5 s.
  json::object wait_for_diffstat(const std::string& id) {
    json::object run;
    for (int i = 0; i < 100; ++i) {
      run = get_run(id);
      if (!run.at("diffstat").is_null()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return run;
  }
  std::string workspace(const std::string& run_id, const std::string& what) {
    return "/api/runs/" + run_id + "/workspace/" + what;
  }
  std::unique_ptr<test::GitRepo> repo;
};

TEST_F(WorkspaceApiTest, FilesSearchPreviewAndRaw) {
  auto id = create_run();
  test::write_file(work_ / "node_modules/dep/app.js", "x");
  test::write_file(work_ / ".github/app.yml", "on: push\n");

  auto files = client().get(workspace(id, "files"));
  ASSERT_EQ(files.status, 200) << files.body;
  auto listing = files.json().as_object();
  EXPECT_EQ(listing.at("runId").as_string(), id);
  EXPECT_EQ(listing.at("path").as_string(), "");
  EXPECT_FALSE(listing.at("truncated").as_bool());
  std::vector<std::string> names;
  for (const auto& e : listing.at("entries").as_array()) names.emplace_back(e.at("name").as_string());
  EXPECT_EQ(names, (std::vector<std::string>{".git", ".github", "node_modules", "src", "README.md", "logo.bin",
                                             "old-name.txt"}));
  auto sub = client().get(workspace(id, "files?path=src"));
  ASSERT_EQ(sub.status, 200) << sub.body;
  EXPECT_EQ(sub.json().at("entries").at(0).at("path").as_string(), "src/app.cpp");

  auto search = client().get(workspace(id, "search?q=app&limit=10"));
  ASSERT_EQ(search.status, 200) << search.body;
  std::vector<std::string> found;
  const auto search_body = search.json();
  for (const auto& e : search_body.at("results").as_array()) found.emplace_back(e.at("path").as_string());
  EXPECT_EQ(found, (std::vector<std::string>{".github/app.yml", "src/app.cpp"}));
  EXPECT_FALSE(search.json().at("truncated").as_bool());
  auto cut = client().get(workspace(id, "search?q=a&limit=1"));
  ASSERT_EQ(cut.status, 200);
  EXPECT_TRUE(cut.json().at("truncated").as_bool());

  auto preview = client().get(workspace(id, "file?path=src%2Fapp.cpp"));
  ASSERT_EQ(preview.status, 200) << preview.body;
  EXPECT_EQ(preview.json().at("content").as_string(), "int main() { return 0; }\n");
  EXPECT_EQ(preview.json().at("encoding").as_string(), "utf-8");

  auto binary = client().get(workspace(id, "file?path=logo.bin"));
  EXPECT_EQ(binary.status, 422);
  EXPECT_EQ(error_code_of(binary), "VALIDATION_FAILED");
  EXPECT_EQ(binary.json().at("error").at("details").at("reason").as_string(), "binary");
  test::write_file(work_ / "latin1.txt", "caf\xE9\n");
  auto latin1 = client().get(workspace(id, "file?path=latin1.txt"));
  EXPECT_EQ(latin1.status, 422);
  EXPECT_EQ(latin1.json().at("error").at("details").at("reason").as_string(), "invalid_utf8");
  test::write_file(work_ / "huge.txt", std::string(1024 * 1024 + 1, 'a'));
  auto huge = client().get(workspace(id, "file?path=huge.txt"));
  EXPECT_EQ(huge.status, 413);
  EXPECT_EQ(client().get(workspace(id, "file?path=missing.txt")).status, 404);
  EXPECT_EQ(client().get(workspace(id, "file")).status, 400);
  EXPECT_EQ(client().get(workspace(id, "files?bogus=1")).status, 400);

  auto raw = client().get(workspace(id, "raw?path=logo.bin"));
  ASSERT_EQ(raw.status, 200) << raw.body;
  EXPECT_EQ(raw.body, std::string("\x89PNG\0\0\x01", 7));
  EXPECT_EQ(raw.header("content-type"), "application/octet-stream");
  EXPECT_NE(raw.header("content-disposition").find("logo.bin"), std::string::npos);
  EXPECT_EQ(raw.header("content-length"), "7");
  EXPECT_EQ(raw.header("x-content-type-options"), "nosniff");
  EXPECT_EQ(raw.header("cache-control"), "no-store");
  // Streamed from disk: a file larger than the preview's limit, every byte, binary included,
  // from a subdirectory and through a symlink that stays inside the run's cwd.
  std::string big(3 * 1024 * 1024 + 17, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 131 + i / 4096) & 0xff);
  fs::create_directories(work_ / "out");
  test::write_file(work_ / "out" / "big.dat", big);
  fs::create_symlink("out/big.dat", work_ / "big-link");
  for (const char* path : {"out%2Fbig.dat", "big-link"}) {
    auto streamed = client().get(workspace(id, std::string("raw?path=") + path));
    ASSERT_EQ(streamed.status, 200) << path;
    EXPECT_EQ(streamed.header("content-length"), std::to_string(big.size())) << path;
    EXPECT_TRUE(streamed.body == big) << path << ": " << streamed.body.size() << " bytes";
    EXPECT_NE(streamed.header("content-disposition").find("big.dat"), std::string::npos) << path;
  }
  auto directory = client().get(workspace(id, "raw?path=out"));
  EXPECT_EQ(directory.status, 422) << directory.body;
  EXPECT_EQ(directory.json().at("error").at("details").at("reason").as_string(), "directory");
  EXPECT_EQ(error_code_of(client().get(workspace(id, "raw?path=missing.bin"))), "NOT_FOUND");
  EXPECT_EQ(client().get("/api/runs/nosuchrun/workspace/files").status, 404);
}

TEST_F(WorkspaceApiTest, TraversalSuiteHasZeroEscapes) {
  auto id = create_run();
  fs::create_symlink(dir_.path() / "secret.txt", work_ / "link-out");
  fs::create_symlink(dir_.path(), work_ / "dir-out");
  fs::create_symlink("/", work_ / "root-link");
  ASSERT_EQ(::link((dir_.path() / "secret.txt").c_str(), (work_ / "hard").c_str()), 0);
  const std::string abs_secret = (dir_.path() / "secret.txt").string();
  // Query values as they go on the wire (one decoding by the daemon).
  const std::vector<std::string> tricks = {
      encode("../secret.txt"),
      encode("src/../../secret.txt"),
      encode(abs_secret),
      encode("/etc/passwd"),
      encode("..\\secret.txt"),
      "%252e%252e%252fsecret.txt",  // double encoding: decodes once to %2e%2e%2fsecret.txt
      encode("%2e%2e/secret.txt"),
      encode("..%2fsecret.txt"),
      encode("link-out"),
      encode("dir-out/secret.txt"),
      encode("root-link/etc/passwd"),
      encode("hard"),
      encode("./../secret.txt"),
      encode("src/./../../secret.txt"),
      "..%5Csecret.txt",
      "%2e%2e%2fsecret.txt",  // encoded once: decodes to ../secret.txt
  };
  int escapes = 0;
  for (const auto& trick : tricks) {
    for (const char* route : {"file", "raw", "files"}) {
      auto response = client().get(workspace(id, std::string(route) + "?path=" + trick));
      const bool leaked = response.status == 200 || response.body.find("top secret") != std::string::npos ||
                          response.body.find("root:") != std::string::npos;
      if (leaked) {
        ++escapes;
        ADD_FAILURE() << route << " " << trick << " -> " << response.status << " " << response.body;
      }
      // Listing a path that resolves to a file inside (the hard link) is "not a directory".
      const bool not_a_directory = std::string(route) == "files" && response.status == 422;
      if (response.status != 400 && response.status != 404 && !not_a_directory) {
        EXPECT_EQ(response.status, 403) << route << " " << trick << ": " << response.body;
      }
      if (response.status == 403) {
        EXPECT_EQ(error_code_of(response), "FORBIDDEN");
      }
    }
  }
  EXPECT_EQ(escapes, 0);
}

TEST_F(WorkspaceApiTest, DiffsOmitTheContentThatFileAndRawRefuse) {
  auto id = create_run();
  const auto secret = dir_.path() / "secret.txt";
  ASSERT_EQ(::link(secret.c_str(), (work_ / "hard-new.txt").c_str()), 0);  // untracked
  fs::remove(work_ / "README.md");
  ASSERT_EQ(::link(secret.c_str(), (work_ / "README.md").c_str()), 0);  // tracked, now modified
  fs::create_symlink(secret, work_ / "link-out");                         // untracked
  fs::remove(work_ / "src/app.cpp");
  fs::create_symlink("../../secret.txt", work_ / "src/app.cpp");  // a type change, leading out
  repo->write_file("untracked.txt", "new text\n");
  const std::map<std::string, std::string> omitted = {
      {"hard-new.txt", "hardlink"}, {"README.md", "hardlink"}, {"link-out", "outside"}, {"src/app.cpp", "outside"}};

  auto check = [&](const std::string& query, const std::string& what) {
    auto response = client().get(workspace(id, "diff?" + query));
    ASSERT_EQ(response.status, 200) << what << ": " << response.body;
    EXPECT_EQ(response.body.find("top secret"), std::string::npos) << what << ": " << response.body;
    EXPECT_EQ(response.body.find(secret.string()), std::string::npos) << what << " shows where a link leads";
    const auto diff = response.json();
    for (const auto& [path, reason] : omitted) {
      auto* entry = file_entry(diff, path);
      ASSERT_TRUE(entry) << what << ": " << path << " is not listed: " << response.body;
      EXPECT_EQ(entry->at("omittedReason"), reason.c_str()) << what << ": " << path;
      EXPECT_TRUE(entry->at("additions").is_null()) << what << ": " << path;
    }
    ASSERT_TRUE(file_entry(diff, "untracked.txt"));
    EXPECT_TRUE(file_entry(diff, "untracked.txt")->at("omittedReason").is_null());
    // Only what may be shown is counted: untracked.txt's one line.
    EXPECT_EQ(diff.at("stats").at("additions").as_int64(), 1) << what;
    EXPECT_EQ(diff.at("stats").at("deletions").as_int64(), 0) << what;
    const std::string patch(diff.at("patch").as_string());
    if (query.find("stat=true") != std::string::npos) return;
    EXPECT_NE(patch.find("+new text"), std::string::npos) << what;
    // Each omitted file is named in the patch, with the reason.
    for (const auto& [path, reason] : omitted) {
      const auto at = patch.find("diff --git a/" + path + " b/" + path + "\n");
      ASSERT_NE(at, std::string::npos) << what << ": " << path << " is not named in the patch:\n" << patch;
      EXPECT_NE(patch.find("(" + reason + ")", at), std::string::npos) << what << ": " << path << "\n" << patch;
    }
  };
  check("mode=working-tree", "working-tree");
  check("mode=working-tree&stat=true", "working-tree --stat");
  // A repository that says it has no symlinks must not make git read through one.
  repo->git({"config", "core.symlinks", "false"});
  check("mode=working-tree", "working-tree, core.symlinks=false");
}

TEST_F(WorkspaceApiTest, ARunsDiffAndDiffstatOmitAHardLinkItMade) {
  write_agent("linker", "mock",
              "{steps: [{exec: ['/bin/sh', '-c', 'ln ../secret.txt run-hard.txt; printf \"run\\\\n\" > run-file.txt']}, "
              "{say: done}]}");
  auto id = start_agent_run("linker");
  ASSERT_FALSE(id.empty());
  wait_until_settled(id);
  json::object run = wait_for_diffstat(id);
  ASSERT_FALSE(run.at("diffstat").is_null()) << json::serialize(run);
  EXPECT_EQ(run.at("diffstat").at("files").as_int64(), 2);
  EXPECT_EQ(run.at("diffstat").at("additions").as_int64(), 1) << "the hard link's lines were counted";

  auto diff = client().get(workspace(id, "diff?mode=run"));
  ASSERT_EQ(diff.status, 200) << diff.body;
  EXPECT_EQ(diff.body.find("top secret"), std::string::npos) << diff.body;
  const auto answer = diff.json();
  ASSERT_TRUE(file_entry(answer, "run-hard.txt")) << diff.body;
  EXPECT_EQ(file_entry(answer, "run-hard.txt")->at("omittedReason"), "hardlink");
  EXPECT_NE(answer.at("patch").as_string().find("+run"), std::string::npos);
}

TEST_F(WorkspaceApiTest, WorkingTreeAndBranchDiffs) {
  auto id = create_run();
  repo->git({"checkout", "-q", "-b", "feature"});
  repo->git({"mv", "old-name.txt", "new-name.txt"});
  repo->commit_all("rename");
  repo->write_file("src/app.cpp", "int main() { return 1; }\n");
  repo->write_file("untracked.txt", "new text\n");
  repo->write_file("logo.bin", std::string("\x89PNG\0\0\x02\x03", 8));
  fs::remove(work_ / "README.md");

  auto wt = client().get(workspace(id, "diff?mode=working-tree"));
  ASSERT_EQ(wt.status, 200) << wt.body;
  auto diff = wt.json();
  EXPECT_EQ(diff.at("mode").as_string(), "working-tree");
  EXPECT_FALSE(diff.at("truncated").as_bool());
  EXPECT_EQ(file_entry(diff, "src/app.cpp")->at("status").as_string(), "modified");
  EXPECT_EQ(file_entry(diff, "untracked.txt")->at("status").as_string(), "untracked");
  EXPECT_EQ(file_entry(diff, "README.md")->at("status").as_string(), "deleted");
  auto* logo = file_entry(diff, "logo.bin");
  ASSERT_TRUE(logo);
  EXPECT_TRUE(logo->at("binary").as_bool());
  EXPECT_TRUE(logo->at("additions").is_null());
  EXPECT_NE(diff.at("patch").as_string().find("+new text"), std::string::npos);
  EXPECT_EQ(diff.at("stats").at("files").as_int64(), 4);

  auto branch = client().get(workspace(id, "diff?mode=branch&base=main&head=HEAD&comparison=merge-base"));
  ASSERT_EQ(branch.status, 200) << branch.body;
  const auto branch_body = branch.json();
  auto* renamed = file_entry(branch_body, "new-name.txt");
  ASSERT_TRUE(renamed) << branch.body;
  EXPECT_EQ(renamed->at("status").as_string(), "renamed");
  EXPECT_EQ(renamed->at("oldPath").as_string(), "old-name.txt");
  EXPECT_FALSE(branch.json().at("mergeBase").is_null());
  auto direct = client().get(workspace(id, "diff?mode=branch&base=main&head=feature&comparison=direct"));
  ASSERT_EQ(direct.status, 200) << direct.body;
  EXPECT_TRUE(direct.json().at("mergeBase").is_null());

  auto missing = client().get(workspace(id, "diff?mode=branch&base=no-such-branch&head=HEAD"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.json().at("error").at("details").at("ref").as_string(), "no-such-branch");
  EXPECT_EQ(client().get(workspace(id, "diff?mode=branch")).status, 400);
  EXPECT_EQ(client().get(workspace(id, "diff?mode=sideways")).status, 400);
  EXPECT_EQ(client().get(workspace(id, "diff?mode=branch&base=main&comparison=nearest")).status, 400);
  auto stat = client().get(workspace(id, "diff?mode=working-tree&stat=true"));
  ASSERT_EQ(stat.status, 200);
  EXPECT_EQ(stat.json().at("patch").as_string(), "");
  EXPECT_EQ(stat.json().at("files").as_array().size(), 4u);
}

TEST_F(WorkspaceApiTest, DetachedHeadAndANestedRepository) {
  const std::string first = repo->head();
  repo->commit_files({{"later.txt", "later\n"}}, "later");
  repo->git({"checkout", "-q", "--detach", first});
  repo->write_file("src/app.cpp", "int main() { return 2; }\n");
  test::GitRepo nested(work_ / "libs" / "inner");
  nested.commit_files({{"inner.txt", "inner\n"}}, "inner");
  nested.write_file("inner.txt", "inner, changed\n");

  auto id = create_run();
  auto wt = client().get(workspace(id, "diff"));
  ASSERT_EQ(wt.status, 200) << wt.body;
  const auto outer = wt.json();
  EXPECT_EQ(outer.at("base").at("commit").as_string(), first);
  EXPECT_TRUE(file_entry(outer, "src/app.cpp"));
  EXPECT_EQ(file_entry(outer, "libs/inner/inner.txt"), nullptr);  // the nested repository's own change
  auto against_main = client().get(workspace(id, "diff?mode=branch&base=main&head=HEAD&comparison=direct"));
  ASSERT_EQ(against_main.status, 200) << against_main.body;
  const auto branch_body = against_main.json();
  ASSERT_TRUE(file_entry(branch_body, "later.txt"));
  EXPECT_EQ(file_entry(branch_body, "later.txt")->at("status").as_string(), "deleted");

  // A run whose cwd is inside the nested repository sees that repository.
  json::object body{{"agent", "worker"}, {"assignment", "feature"}, {"callerCwd", (work_ / "libs" / "inner").string()},
                    {"cliVars", {{"feature", "inner"}}}};
  auto created = client().post_json("/api/runs/init", body);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string inner_id(created.json().at("runId").as_string());
  auto inner = client().get(workspace(inner_id, "diff"));
  ASSERT_EQ(inner.status, 200) << inner.body;
  const auto inner_body = inner.json();
  ASSERT_EQ(inner_body.at("files").as_array().size(), 1u) << inner.body;
  EXPECT_EQ(inner_body.at("files").at(0).at("path").as_string(), "inner.txt");
  auto files = client().get(workspace(inner_id, "files"));
  ASSERT_EQ(files.status, 200);
  EXPECT_EQ(client().get(workspace(inner_id, "file?path=..%2F..%2FREADME.md")).status, 403);
}

TEST_F(WorkspaceApiTest, DiffOutsideAGitWorkTreeIsAClearError) {
  fs::remove_all(work_ / ".git");
  auto id = create_run();
  auto diff = client().get(workspace(id, "diff"));
  EXPECT_EQ(diff.status, 422) << diff.body;
  EXPECT_EQ(diff.json().at("error").at("details").at("reason").as_string(), "not_a_git_work_tree");
}

TEST_F(WorkspaceApiTest, ARunsOwnDiffIsExactOnADirtyTreeAndItsSummaryHasADiffstat) {
  // The user's uncommitted work, there before the run starts.
  repo->write_file("README.md", "# project, edited by the user\n");
  repo->write_file("user-notes.txt", "mine\n");
  const std::string status_before = repo->git({"status", "--porcelain=v1"});
  write_agent("editor", "mock",
              "{steps: [{exec: ['/bin/sh', '-c', 'printf \"run\\\\n\" > run-file.txt; printf \"x\\\\n\" >> src/app.cpp']}, "
              "{say: done}]}");
  auto id = start_agent_run("editor");
  ASSERT_FALSE(id.empty());
  wait_until_settled(id);
  json::object run = wait_for_diffstat(id);
  ASSERT_FALSE(run.at("diffstat").is_null()) << json::serialize(run);
  EXPECT_EQ(run.at("diffstat").at("files").as_int64(), 2);
  EXPECT_EQ(run.at("diffstat").at("additions").as_int64(), 2);
  EXPECT_EQ(run.at("diffstat").at("deletions").as_int64(), 0);

  auto diff = client().get(workspace(id, "diff?mode=run"));
  ASSERT_EQ(diff.status, 200) << diff.body;
  auto answer = diff.json();
  ASSERT_EQ(answer.at("files").as_array().size(), 2u) << diff.body;
  EXPECT_TRUE(file_entry(answer, "run-file.txt"));
  EXPECT_TRUE(file_entry(answer, "src/app.cpp"));
  EXPECT_EQ(file_entry(answer, "README.md"), nullptr);
  EXPECT_EQ(answer.at("base").at("ref").as_string(), "refs/agentry/runs/" + id + "/base");
  // The user's index and HEAD were left alone: only the run's two files are new in status.
  EXPECT_NE(repo->git({"status", "--porcelain=v1"}).find("user-notes.txt"), std::string::npos);
  EXPECT_NE(status_before, "");

  // A run that never started has no baseline.
  auto idle = create_run();
  auto none = client().get(workspace(idle, "diff?mode=run"));
  EXPECT_EQ(none.status, 404);
  EXPECT_EQ(none.json().at("error").at("details").at("reason").as_string(), "no_baseline");
}

TEST_F(WorkspaceApiTest, WebSocketMethodsAnswerWhatHttpAnswers) {
  auto id = create_run();
  repo->write_file("src/app.cpp", "changed\n");
  test::WsClient ws("127.0.0.1", daemon_->port());
  struct Pair {
    const char* method;
    json::object params;
    std::string target;
  };
  const std::vector<Pair> pairs = {
      {"workspace.files", {{"runId", id}, {"path", "src"}}, workspace(id, "files?path=src")},
      {"workspace.search", {{"runId", id}, {"q", "app"}}, workspace(id, "search?q=app")},
      {"workspace.file", {{"runId", id}, {"path", "README.md"}}, workspace(id, "file?path=README.md")},
      {"workspace.diff", {{"runId", id}, {"mode", "working-tree"}}, workspace(id, "diff?mode=working-tree")},
  };
  for (const auto& pair : pairs) {
    auto over_ws = ws.call(pair.method, pair.params);
    auto over_http = client().get(pair.target);
    ASSERT_EQ(over_http.status, 200) << over_http.body;
    ASSERT_TRUE(over_ws.contains("result")) << json::serialize(over_ws);
    EXPECT_EQ(json::serialize(over_ws.at("result")), json::serialize(over_http.json())) << pair.method;
  }
  auto refused = ws.call("workspace.file", json::object{{"runId", id}, {"path", "../secret.txt"}});
  ASSERT_TRUE(refused.contains("error"));
  EXPECT_EQ(refused.at("error").at("data").at("code").as_string(), "FORBIDDEN");
}

}  // namespace
}  // namespace agentry::integration
