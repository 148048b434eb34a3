// Attachments over WebSocket byte streams, against the real daemon: uploads and
// downloads of multi-MiB files with their sha256, the daemon honouring the client's
// stream.window credit, limit violations failing only the stream, cancel removing the
// spool file, and the per-connection stream limit.
#include "daemon_fixture.hpp"
#include "random_content.hpp"
#include "support/ws_client.hpp"

#include "core/base64.hpp"


#include <random>
#include <sstream>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string notify(const std::string& method, json::object params) {
  return json::serialize(json::object{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

std::string data_frame(const std::string& sid, std::int64_t seq, std::string_view bytes) {
  return notify("stream.data", {{"streamId", sid}, {"seq", seq}, {"data", core::base64_encode(bytes)}});
}

class AttachmentStreamsTest : public DaemonTest {
 protected:
  std::size_t spool_files() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(home_ / "blobs" / "tmp")) ++n;
    return n;
  }

  /// The next stream.* notification of `sid` (other streams' are skipped).
  json::object next_of(test::WsClient& ws, const std::string& sid, std::chrono::milliseconds timeout = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left <= 0ms) return {};
      auto n = ws.next_notification(left);
      if (!n) return {};
      if (n->at("params").as_object().if_contains("streamId") && n->at("params").at("streamId") == json::value(sid))
        return *n;
    }
  }

  std::string open_upload(test::WsClient& ws, const std::string& run, const std::string& name,
                          std::optional<std::uint64_t> size = std::nullopt) {
    json::object params{{"runId", run}, {"name", name}};
    if (size) params["size"] = *size;
    auto opened = ws.call("attachments.upload.open", params);
    EXPECT_TRUE(opened.contains("result")) << json::serialize(opened);
    if (!opened.contains("result")) return {};
    EXPECT_EQ(opened.at("result").at("window").to_number<std::uint64_t>(), 512u * 1024);
    return std::string(opened.at("result").at("streamId").as_string());
  }

  /// Uploads `bytes`, sending only as far as the daemon's credit; the finish answer.
  json::object upload(test::WsClient& ws, const std::string& run, const std::string& name, const std::string& bytes) {
    const std::string sid = open_upload(ws, run, name, bytes.size());
    std::uint64_t credit = 512 * 1024, offset = 0;
    std::int64_t seq = 0;
    while (offset < bytes.size()) {
      while (credit == 0) {
        auto n = next_of(ws, sid);
        if (n.empty()) throw std::runtime_error("no stream.window from the daemon");
        if (n.at("method") == "stream.error") throw std::runtime_error(json::serialize(n));
        if (n.at("method") == "stream.window") credit += n.at("params").at("bytes").to_number<std::uint64_t>();
      }
      const auto k = std::min<std::uint64_t>({65536, credit, bytes.size() - offset});
      ws.send_text(data_frame(sid, seq++, std::string_view(bytes).substr(offset, k)));
      offset += k;
      credit -= k;
    }
    ws.send_text(notify("stream.end", {{"streamId", sid}, {"seq", seq}}));
    return ws.call("attachments.upload.finish", json::object{{"streamId", sid}});
  }
};

TEST_F(AttachmentStreamsTest, UploadAndDownloadRoundTrip) {
  auto run = create_run();
  const std::string bytes = random_bytes(5 * 1024 * 1024 + 1234, 7);
  test::WsClient ws("127.0.0.1", daemon_->port());
  auto finished = upload(ws, run, "big data.bin", bytes);
  ASSERT_TRUE(finished.contains("result")) << json::serialize(finished);
  const auto& a = finished.at("result").at("attachment").as_object();
  EXPECT_EQ(a.at("size").to_number<std::uint64_t>(), bytes.size());
  EXPECT_EQ(a.at("sha256"), json::value(sha256_hex(bytes)));
  EXPECT_EQ(a.at("name"), "big data.bin");
  const std::string id(a.at("attachmentId").as_string());
  EXPECT_EQ(spool_files(), 0u);
  // The HTTP route serves the same content.
  EXPECT_TRUE(client().get("/api/runs/" + run + "/attachments/" + id + "/content").body == bytes);

  auto down = ws.call("attachments.download", json::object{{"runId", run}, {"attachmentId", id}});
  ASSERT_TRUE(down.contains("result")) << json::serialize(down);
  EXPECT_EQ(down.at("result").at("attachment").at("sha256"), json::value(sha256_hex(bytes)));
  const std::string sid(down.at("result").at("streamId").as_string());
  std::string got;
  std::int64_t seq = 0;
  std::uint64_t granted = 512 * 1024;
  for (;;) {
    auto n = next_of(ws, sid);
    ASSERT_FALSE(n.empty()) << "the download stalled after " << got.size() << " bytes";
    const auto& p = n.at("params").as_object();
    if (n.at("method") == "stream.end") {
      EXPECT_EQ(p.at("seq").as_int64(), seq);
      break;
    }
    ASSERT_EQ(n.at("method"), "stream.data") << json::serialize(n);
    ASSERT_EQ(p.at("seq").as_int64(), seq++);
    auto chunk = core::base64_decode(std::string_view(p.at("data").as_string()));
    ASSERT_TRUE(chunk);
    ASSERT_LE(chunk->size(), 65536u);
    got += *chunk;
    ASSERT_LE(got.size(), granted) << "the daemon sent past its credit";
    ws.send_text(notify("stream.window", {{"streamId", sid}, {"bytes", chunk->size()}}));
    granted += chunk->size();
  }
  EXPECT_EQ(got.size(), bytes.size());
  EXPECT_EQ(sha256_hex(got), sha256_hex(bytes));
}

TEST_F(AttachmentStreamsTest, DownloadHonoursTheClientsCredit) {
  auto run = create_run();
  const std::string bytes = random_bytes(2 * 1024 * 1024, 9);
  test::WsClient ws("127.0.0.1", daemon_->port());
  auto finished = upload(ws, run, "credit.bin", bytes);
  ASSERT_TRUE(finished.contains("result")) << json::serialize(finished);
  const std::string id(finished.at("result").at("attachment").at("attachmentId").as_string());

  auto down = ws.call("attachments.download", json::object{{"runId", run}, {"attachmentId", id}});
  ASSERT_TRUE(down.contains("result")) << json::serialize(down);
  const std::string sid(down.at("result").at("streamId").as_string());
  std::string got;
  auto take = [&](std::chrono::milliseconds timeout) {
    auto n = next_of(ws, sid, timeout);
    if (n.empty()) return false;
    EXPECT_EQ(n.at("method"), "stream.data") << json::serialize(n);
    if (n.at("method") != "stream.data") return false;
    got += *core::base64_decode(std::string_view(n.at("params").at("data").as_string()));
    return true;
  };
  while (got.size() < 512 * 1024) ASSERT_TRUE(take(10s)) << "after " << got.size() << " bytes";
  EXPECT_EQ(got.size(), 512u * 1024);
  // Nothing more comes until the client grants more.
  EXPECT_FALSE(take(700ms));
  EXPECT_EQ(got.size(), 512u * 1024);
  ws.send_text(notify("stream.window", {{"streamId", sid}, {"bytes", 100000}}));
  while (got.size() < 512 * 1024 + 100000) ASSERT_TRUE(take(10s));
  EXPECT_FALSE(take(500ms));
  EXPECT_EQ(got.size(), 512u * 1024 + 100000);
  ws.send_text(notify("stream.window", {{"streamId", sid}, {"bytes", 4 * 1024 * 1024}}));
  while (got.size() < bytes.size()) ASSERT_TRUE(take(10s));
  auto end = next_of(ws, sid);
  EXPECT_EQ(end.at("method"), "stream.end");
  EXPECT_TRUE(got == bytes);
}

TEST_F(AttachmentStreamsTest, ViolationsFailOnlyTheStream) {
  auto run = create_run();
  test::WsClient ws("127.0.0.1", daemon_->port());
  auto expect_error = [&](const std::string& sid, const std::string& frame, const std::string& needle) {
    ws.send_text(frame);
    auto n = next_of(ws, sid);
    while (!n.empty() && n.at("method") == "stream.window") n = next_of(ws, sid);  // credit for earlier data
    ASSERT_FALSE(n.empty()) << "no stream.error for " << needle;
    EXPECT_EQ(n.at("method"), "stream.error") << json::serialize(n);
    EXPECT_NE(std::string(n.at("params").at("message").as_string()).find(needle), std::string::npos)
        << json::serialize(n);
    // The stream is gone: finishing it fails.
    auto finish = ws.call("attachments.upload.finish", json::object{{"streamId", sid}});
    EXPECT_TRUE(finish.contains("error")) << json::serialize(finish);
  };
  auto sid = open_upload(ws, run, "a.bin");
  expect_error(sid, data_frame(sid, 1, "abc"), "seq");
  sid = open_upload(ws, run, "b.bin");
  expect_error(sid, notify("stream.data", {{"streamId", sid}, {"seq", 0}, {"data", "not base64!"}}), "base64");
  sid = open_upload(ws, run, "c.bin");
  expect_error(sid, data_frame(sid, 0, std::string(65537, 'x')), "65536");
  sid = open_upload(ws, run, "d.bin", 10);
  expect_error(sid, data_frame(sid, 0, std::string(11, 'x')), "declared size");
  sid = open_upload(ws, run, "e.bin", 10);
  ws.send_text(data_frame(sid, 0, std::string(4, 'x')));
  expect_error(sid, notify("stream.end", {{"streamId", sid}, {"seq", 1}}), "declared");
  expect_error("st_nope", data_frame("st_nope", 0, "x"), "no active stream");

  // Refused up front: too large, a bad name, an unknown run.
  auto big = ws.call("attachments.upload.open",
                     json::object{{"runId", run}, {"name", "big"}, {"size", 25 * 1024 * 1024 + 1}});
  ASSERT_TRUE(big.contains("error"));
  EXPECT_EQ(big.at("error").at("data").at("code"), "PAYLOAD_TOO_LARGE") << json::serialize(big);
  auto bad_name = ws.call("attachments.upload.open", json::object{{"runId", run}, {"name", ".."}});
  EXPECT_TRUE(bad_name.contains("error")) << json::serialize(bad_name);
  auto no_run = ws.call("attachments.upload.open", json::object{{"runId", "run_nope"}, {"name", "x"}});
  ASSERT_TRUE(no_run.contains("error")) << json::serialize(no_run);

  // The connection is fine, and nothing was stored or left behind.
  auto listed = ws.call("attachments.list", json::object{{"runId", run}});
  ASSERT_TRUE(listed.contains("result")) << json::serialize(listed);
  EXPECT_TRUE(listed.at("result").at("attachments").as_array().empty());
  for (int i = 0; i < 50 && spool_files() > 0; ++i) std::this_thread::sleep_for(50ms);
  EXPECT_EQ(spool_files(), 0u);
}

TEST_F(AttachmentStreamsTest, CancelRemovesTheSpoolFile) {
  auto run = create_run();
  test::WsClient ws("127.0.0.1", daemon_->port());
  auto sid = open_upload(ws, run, "cancelled.bin");
  ws.send_text(data_frame(sid, 0, std::string(65536, 'z')));
  auto window = next_of(ws, sid);
  ASSERT_EQ(window.at("method"), "stream.window") << json::serialize(window);
  EXPECT_EQ(spool_files(), 1u);
  ws.send_text(notify("stream.cancel", {{"streamId", sid}}));
  for (int i = 0; i < 100 && spool_files() > 0; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(spool_files(), 0u);
  auto finish = ws.call("attachments.upload.finish", json::object{{"streamId", sid}});
  EXPECT_TRUE(finish.contains("error"));
  // Closing the connection drops its streams too.
  {
    test::WsClient other("127.0.0.1", daemon_->port());
    open_upload(other, run, "dropped.bin");
    EXPECT_EQ(spool_files(), 1u);
  }
  for (int i = 0; i < 100 && spool_files() > 0; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(spool_files(), 0u);
}

TEST_F(AttachmentStreamsTest, AtMostEightStreamsPerConnection) {
  auto run = create_run();
  test::WsClient ws("127.0.0.1", daemon_->port());
  std::vector<std::string> open;
  for (int i = 0; i < 8; ++i) open.push_back(open_upload(ws, run, "f" + std::to_string(i)));
  auto ninth = ws.call("attachments.upload.open", json::object{{"runId", run}, {"name", "f8"}});
  ASSERT_TRUE(ninth.contains("error")) << json::serialize(ninth);
  EXPECT_NE(json::serialize(ninth).find("at most 8"), std::string::npos) << json::serialize(ninth);
  // Another connection has its own eight.
  test::WsClient other("127.0.0.1", daemon_->port());
  open_upload(other, run, "other");
  // Ending one makes room.
  ws.send_text(data_frame(open[0], 0, "hello"));
  ws.send_text(notify("stream.end", {{"streamId", open[0]}, {"seq", 1}}));
  auto done = ws.call("attachments.upload.finish", json::object{{"streamId", open[0]}});
  ASSERT_TRUE(done.contains("result")) << json::serialize(done);
  EXPECT_EQ(done.at("result").at("attachment").at("size").as_int64(), 5);
  auto now = ws.call("attachments.upload.open", json::object{{"runId", run}, {"name", "f8"}});
  EXPECT_TRUE(now.contains("result")) << json::serialize(now);
}

}  // namespace
}  // namespace agentry::integration
