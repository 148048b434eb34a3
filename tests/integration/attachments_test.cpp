// Attachments over the real daemon: raw-body uploads spooled to disk, listing by run or
// group, downloads with their headers, names made safe, the limits, removal (the content
// goes with the last row that names it), audit and RunDetail, and the WebSocket methods.
#include "daemon_fixture.hpp"
#include "support/test_store.hpp"
#include "random_content.hpp"
#include "support/ws_client.hpp"


#include <fstream>
#include <random>
#include <sstream>

namespace agentry::integration {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;

class AttachmentsTest : public DaemonTest {
 protected:
  test::HttpResponse upload(const std::string& run, const std::string& name, const std::string& bytes,
                            const std::string& type = "application/octet-stream") {
    return client().post("/api/runs/" + run + "/attachments", bytes, {{"X-Agentry-Attachment-Name", name}}, type);
  }
  json::array list(const std::string& run, const std::string& scope = "") {
    auto r = client().get("/api/runs/" + run + "/attachments" + (scope.empty() ? "" : "?scope=" + scope));
    EXPECT_EQ(r.status, 200) << r.body;
    return r.json().at("attachments").as_array();
  }
  fs::path blob_path(const std::string& sha) { return home_ / "blobs" / sha.substr(0, 2) / sha; }
  std::size_t spool_files() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(home_ / "blobs" / "tmp")) ++n;
    return n;
  }
};

TEST_F(AttachmentsTest, UploadListDownloadAndRemove) {
  auto run = create_run();
  const std::string bytes = random_bytes(3 * 1024 * 1024 + 17, 1);
  auto up = upload(run, "design notes.bin", bytes);
  ASSERT_EQ(up.status, 201) << up.body;
  auto a = up.json().at("attachment").as_object();
  EXPECT_EQ(a.at("name"), "design notes.bin");
  EXPECT_EQ(a.at("size").to_number<std::uint64_t>(), bytes.size());
  EXPECT_EQ(a.at("sha256"), json::value(sha256_hex(bytes)));
  EXPECT_EQ(a.at("runId"), json::value(run));
  const std::string id(a.at("attachmentId").as_string());
  EXPECT_TRUE(fs::exists(blob_path(sha256_hex(bytes))));
  EXPECT_EQ(spool_files(), 0u);

  auto listed = list(run);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed.at(0).as_object(), a);
  EXPECT_EQ(get_run(run).at("attachments").as_array().at(0).as_object(), a);
  // The count is in every RunSummary: the run's detail and the board's list.
  EXPECT_EQ(get_run(run).at("attachmentCount").as_int64(), 1);
  const auto board = client().get("/api/runs?global=true").json();
  bool listed_run = false;
  for (const auto& s : board.at("runs").as_array())
    if (s.at("runId").as_string() == run) {
      listed_run = true;
      EXPECT_EQ(s.at("attachmentCount").as_int64(), 1);
    }
  EXPECT_TRUE(listed_run);

  auto down = client().get("/api/runs/" + run + "/attachments/" + id + "/content");
  ASSERT_EQ(down.status, 200);
  EXPECT_TRUE(down.body == bytes) << "downloaded content differs";
  EXPECT_EQ(down.headers.at("x-agentry-sha256"), sha256_hex(bytes));
  EXPECT_EQ(down.headers.at("x-agentry-attachment-id"), id);
  EXPECT_EQ(down.headers.at("content-type"), "application/octet-stream");
  EXPECT_EQ(down.headers.at("content-disposition"),
            "attachment; filename=\"design notes.bin\"; filename*=UTF-8''design%20notes.bin");

  auto removed = client().del("/api/runs/" + run + "/attachments/" + id);
  ASSERT_EQ(removed.status, 200) << removed.body;
  EXPECT_EQ(removed.json().at("removed"), true);
  EXPECT_TRUE(list(run).empty());
  EXPECT_EQ(get_run(run).at("attachmentCount").as_int64(), 0);
  // On SQLite the content goes with the last attachment naming it; on a shared store a
  // member leaves it to the sweep, since another member may be naming it again.
  EXPECT_EQ(fs::exists(blob_path(sha256_hex(bytes))), test::testing_on_postgresql());
  EXPECT_EQ(client().get("/api/runs/" + run + "/attachments/" + id + "/content").status, 404);
  EXPECT_EQ(client().del("/api/runs/" + run + "/attachments/" + id).status, 404);

  std::vector<std::string> types;
  auto audit = client().get("/api/runs/" + run + "/audit").json();
  for (const auto& e : audit.at("events").as_array()) types.emplace_back(e.at("type").as_string());
  EXPECT_NE(std::find(types.begin(), types.end(), "attachment.added"), types.end());
  EXPECT_NE(std::find(types.begin(), types.end(), "attachment.removed"), types.end());
}

TEST_F(AttachmentsTest, EqualContentIsStoredOnceAndKeptWhileNamed) {
  auto run = create_run();
  const std::string bytes = "same bytes";
  auto first = upload(run, "a.txt", bytes, "text/plain; charset=utf-8");
  auto second = upload(run, "b.txt", bytes, "text/plain");
  ASSERT_EQ(first.status, 201);
  ASSERT_EQ(second.status, 201);
  EXPECT_EQ(first.json().at("attachment").at("contentType"), "text/plain");
  const std::string id(first.json().at("attachment").at("attachmentId").as_string());
  ASSERT_EQ(client().del("/api/runs/" + run + "/attachments/" + id).status, 200);
  EXPECT_TRUE(fs::exists(blob_path(sha256_hex(bytes))));  // b.txt still names it
  auto down = client().get("/api/runs/" + run + "/attachments/" +
                           std::string(second.json().at("attachment").at("attachmentId").as_string()) + "/content");
  EXPECT_EQ(down.body, bytes);
  EXPECT_EQ(down.headers.at("content-type"), "text/plain");
}

TEST_F(AttachmentsTest, NamesAreMadeSafeAndBadUploadsRefused) {
  auto run = create_run();
  auto traversal = upload(run, "../../etc/passwd", "x");
  ASSERT_EQ(traversal.status, 201) << traversal.body;
  EXPECT_EQ(traversal.json().at("attachment").at("name"), "passwd");
  auto windows = upload(run, "C:\\Users\\me\\report.pdf", "x");
  EXPECT_EQ(windows.json().at("attachment").at("name"), "report.pdf");
  auto encoded = upload(run, "r%C3%A9sum%C3%A9%0A.pdf", "x");
  ASSERT_EQ(encoded.status, 201) << encoded.body;
  EXPECT_EQ(encoded.json().at("attachment").at("name"), "r\xC3\xA9sum\xC3\xA9.pdf");
  auto down = client().get("/api/runs/" + run + "/attachments/" +
                           std::string(encoded.json().at("attachment").at("attachmentId").as_string()) + "/content");
  EXPECT_EQ(down.headers.at("content-disposition"),
            "attachment; filename=\"r__sum__.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf");

  for (const std::string bad : {"..", "dir/", "%ZZ", "%FF.txt"}) {
    auto r = upload(run, bad, "x");
    EXPECT_EQ(r.status, 400) << bad << ": " << r.body;
    EXPECT_EQ(error_code_of(r), "INVALID_REQUEST");
  }
  // Without the name header an upload is an ordinary POST: a body that is not JSON is
  // refused as any would be (a page could send it), and JSON is told what is missing.
  EXPECT_EQ(client().post("/api/runs/" + run + "/attachments", "x", {}, "application/octet-stream").status, 415);
  auto nameless = client().post("/api/runs/" + run + "/attachments", "{}");
  EXPECT_EQ(nameless.status, 400);
  EXPECT_NE(nameless.body.find("X-Agentry-Attachment-Name"), std::string::npos) << nameless.body;
  auto unknown_run = upload("nosuchrun", "a.txt", "x");
  EXPECT_EQ(unknown_run.status, 404) << unknown_run.body;
  auto bad_scope = client().get("/api/runs/" + run + "/attachments?scope=all");
  EXPECT_EQ(bad_scope.status, 400);
  EXPECT_EQ(spool_files(), 0u);  // refused uploads leave nothing behind
}

TEST_F(AttachmentsTest, LimitsAreEnforced) {
  auto run = create_run();
  // The announced length is refused before the body is read.
  auto too_big = client().post("/api/runs/" + run + "/attachments", "x",
                               {{"X-Agentry-Attachment-Name", "big.bin"},
                                {"Content-Length", std::to_string(25 * 1024 * 1024 + 1)}},
                               "application/octet-stream");
  EXPECT_EQ(too_big.status, 413) << too_big.body;
  EXPECT_EQ(error_code_of(too_big), "PAYLOAD_TOO_LARGE");
  // Other routes keep their 1 MiB limit.
  auto json_too_big = client().post("/api/runs/" + run + "/name", std::string(1024 * 1024 + 10, ' '));
  EXPECT_EQ(json_too_big.status, 413);

  for (int i = 0; i < 100; ++i) ASSERT_EQ(upload(run, "f" + std::to_string(i), std::to_string(i)).status, 201) << i;
  auto one_more = upload(run, "f100", "100");
  EXPECT_EQ(one_more.status, 413) << one_more.body;
  EXPECT_EQ(list(run).size(), 100u);
  EXPECT_EQ(spool_files(), 0u);
}

TEST_F(AttachmentsTest, GroupScopeAndWebSocketMethods) {
  auto first = create_run();
  const std::string group(get_run(first).at("runGroupId").as_string());
  json::object body{{"agent", "worker"}, {"assignment", "feature"}, {"callerCwd", work_.string()},
                    {"cliVars", {{"feature", "second"}}}, {"runGroupId", group}};
  auto second_created = client().post_json("/api/runs/init", body);
  ASSERT_EQ(second_created.status, 201) << second_created.body;
  const std::string second(second_created.json().at("run").at("runId").as_string());
  ASSERT_EQ(upload(first, "one.txt", "1").status, 201);
  auto two = upload(second, "two.txt", "2");
  ASSERT_EQ(two.status, 201);
  const std::string two_id(two.json().at("attachment").at("attachmentId").as_string());

  EXPECT_EQ(list(first).size(), 2u);  // the reference's default scope is the group
  EXPECT_EQ(list(first, "run").size(), 1u);
  // A group member's attachment downloads through any run of the group.
  EXPECT_EQ(client().get("/api/runs/" + first + "/attachments/" + two_id + "/content").body, "2");
  // Removal is by the run that has it.
  EXPECT_EQ(client().del("/api/runs/" + first + "/attachments/" + two_id).status, 404);

  test::WsClient ws("127.0.0.1", daemon_->port());
  auto listed = ws.call("attachments.list", json::object{{"runId", first}, {"scope", "run"}});
  ASSERT_TRUE(listed.contains("result")) << json::serialize(listed);
  EXPECT_EQ(listed.at("result").at("attachments").as_array().size(), 1u);
  auto removed = ws.call("attachments.remove", json::object{{"runId", second}, {"attachmentId", two_id}});
  ASSERT_TRUE(removed.contains("result")) << json::serialize(removed);
  EXPECT_EQ(removed.at("result").at("attachment").at("name"), "two.txt");
  auto again = ws.call("attachments.remove", json::object{{"runId", second}, {"attachmentId", two_id}});
  ASSERT_TRUE(again.contains("error"));
  EXPECT_EQ(list(first).size(), 1u);
}

TEST_F(AttachmentsTest, SessionPromptListsTheAttachments) {
  // No attachments: the prompt says nothing of them.
  auto plain = create_run("plain");
  client().post_json("/api/runs/" + plain + "/ready", json::object{});
  ASSERT_EQ(client().post_json("/api/runs/" + plain + "/resume", json::object{}).status, 200);
  const std::string plain_prompt(get_run(plain).at("sessions").as_array().at(0).at("prompt").as_string());
  EXPECT_EQ(plain_prompt.find("Attachments"), std::string::npos) << plain_prompt;

  auto run = create_run();
  const std::string bytes = "col1,col2\n1,2\n";
  auto up = upload(run, "data.csv", bytes);
  ASSERT_EQ(up.status, 201) << up.body;
  const std::string sha(up.json().at("attachment").at("sha256").as_string());
  client().post_json("/api/runs/" + run + "/ready", json::object{});
  auto started = client().post_json("/api/runs/" + run + "/resume", json::object{});
  ASSERT_EQ(started.status, 200) << started.body;
  const std::string prompt(get_run(run).at("sessions").as_array().at(0).at("prompt").as_string());
  EXPECT_NE(prompt.find("## Attachments"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("- data.csv (" + std::to_string(bytes.size()) + " bytes): " + blob_path(sha).string()),
            std::string::npos)
      << prompt;
  EXPECT_NE(prompt.find("dark mode"), std::string::npos) << "the brief is still there: " << prompt;
}

}  // namespace
}  // namespace agentry::integration
