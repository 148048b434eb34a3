// Self tests of the integration-test support library, against TestServer (a scripted server
// on 127.0.0.1:0) and small shell scripts standing in for the daemon.
#include "support/daemon_process.hpp"
#include "support/git_repo.hpp"
#include "support/http_client.hpp"
#include "support/temp_dir.hpp"
#include "support/test_server.hpp"
#include "support/timeline_stream.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace agentry::test {
namespace {

using namespace std::chrono_literals;

// gtest-only substring check (no gmock dependency) that prints the whole text on failure.
::testing::AssertionResult contains(const std::string& text, std::string_view part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << part << "\" not found in:\n" << text;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no exception>";
}

HttpClient client_for(const TestServer& server) { return HttpClient("127.0.0.1", server.port()); }

// ---- HttpClient -------------------------------------------------------------------------

TEST(HttpClientTest, ReadsContentLengthBodyAndLowerCasesHeaders) {
  TestServer server([](ServerConnection& c) {
    ASSERT_TRUE(c.read_request());
    c.send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Multi: a\r\nX-Multi: b\r\n");
    c.pause(20ms);
    c.send("Content-Length: 11\r\n\r\n{\"ok\":");
    c.pause(20ms);
    c.send("true}");
    c.wait_for_peer_close();
  });
  const HttpResponse r = client_for(server).get("/api/runs?limit=2");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.reason, "OK");
  EXPECT_EQ(r.headers.at("content-type"), "application/json");
  EXPECT_EQ(r.header("Content-Type"), "application/json");
  EXPECT_EQ(r.header("x-multi"), "a, b");
  EXPECT_EQ(r.json().at("ok").as_bool(), true);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1U);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target, "/api/runs?limit=2");
  EXPECT_EQ(requests[0].headers.at("connection"), "close");
  EXPECT_EQ(requests[0].headers.at("host"), "127.0.0.1:" + std::to_string(server.port()));
  EXPECT_FALSE(requests[0].headers.contains("content-length"));
}

TEST(HttpClientTest, DecodesChunkedBodySplitAnywhereWithExtensionsAndTrailers) {
  const std::string wire =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;name=value\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: yes\r\n\r\n";
  TestServer server([&](ServerConnection& c) {
    ASSERT_TRUE(c.read_request());
    for (const char ch : wire) c.send(std::string_view(&ch, 1));  // one byte per write
    c.wait_for_peer_close();  // the client must stop at the last chunk, not wait for close
  });
  const HttpResponse r = client_for(server).get("/chunked");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "hello 0123456789");
}

TEST(HttpClientTest, ReadsUntilCloseWithoutFraming) {
  TestServer server([](ServerConnection& c) {
    ASSERT_TRUE(c.read_request());
    c.send("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n\r\npart one, ");
    c.pause(30ms);
    c.send("part two");
  });
  const HttpResponse r = client_for(server).get("/close");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.reason, "Service Unavailable");
  EXPECT_EQ(r.body, "part one, part two");
}

TEST(HttpClientTest, SkipsInterimResponsesAndHonoursNoBodyStatuses) {
  TestServer server([](ServerConnection& c) {
    ASSERT_TRUE(c.read_request());
    c.send("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nX-Id: 7\r\n\r\n");
    c.wait_for_peer_close();
  });
  HttpClient client = client_for(server);
  client.set_timeout(2s);
  const HttpResponse r = client.del("/api/runs/7");
  EXPECT_EQ(r.status, 204);
  EXPECT_EQ(r.header("x-id"), "7");
  EXPECT_TRUE(r.body.empty());
  EXPECT_EQ(server.requests().at(0).method, "DELETE");
}

TEST(HttpClientTest, SendsBodiesWithContentTypeAndLength) {
  TestServer server([](ServerConnection& c) {
    ASSERT_TRUE(c.read_request());
    c.send("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n");
  });
  HttpClient client = client_for(server);
  client.set_default_header("Authorization", "Bearer default");
  EXPECT_EQ(client.post_json("/api/runs", boost::json::object{{"agent", "mock"}}).status, 201);
  EXPECT_EQ(client.put("/a", "text", {{"Authorization", "Bearer mine"}}, "text/plain").status, 201);
  EXPECT_EQ(client.patch_json("/b", boost::json::object{{"pinned", true}}).status, 201);
  EXPECT_EQ(client.post("/c", "").status, 201);

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 4U);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].headers.at("content-type"), "application/json");
  EXPECT_EQ(boost::json::parse(requests[0].body), (boost::json::object{{"agent", "mock"}}));
  EXPECT_EQ(requests[0].headers.at("content-length"), std::to_string(requests[0].body.size()));
  EXPECT_EQ(requests[0].headers.at("authorization"), "Bearer default");
  EXPECT_EQ(requests[1].method, "PUT");
  EXPECT_EQ(requests[1].headers.at("content-type"), "text/plain");
  EXPECT_EQ(requests[1].headers.at("authorization"), "Bearer mine");
  EXPECT_EQ(requests[1].body, "text");
  EXPECT_EQ(requests[2].method, "PATCH");
  EXPECT_EQ(requests[3].headers.at("content-length"), "0");
}

TEST(HttpClientTest, TimesOutWaitingForResponseWithAClearMessage) {
  TestServer server([](ServerConnection& c) {
    ASSERT_TRUE(c.read_request());
    c.wait_for_peer_close();
  });
  HttpClient client = client_for(server);
  client.set_timeout(200ms);
  const auto start = Clock::now();
  const std::string message = error_of([&] { client.get("/api/runs"); });
  EXPECT_EQ(message, "timed out after 200 ms waiting for response to GET /api/runs");
  EXPECT_LT(Clock::now() - start, 3s);
}

TEST(HttpClientTest, TimesOutInTheBodyQuotingWhatArrived) {
  TestServer server([](ServerConnection& c) {
    ASSERT_TRUE(c.read_request());
    c.send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
    c.wait_for_peer_close();
  });
  HttpClient client = client_for(server);
  client.set_timeout(200ms);
  const std::string message = error_of([&] { client.get("/slow"); });
  EXPECT_TRUE(contains(message, "timed out after 200 ms waiting for the body of the response to GET /slow"));
  EXPECT_TRUE(contains(message, "abc"));
}

TEST(HttpClientTest, ReportsTruncatedBodies) {
  TestServer server([](ServerConnection& c) {
    ASSERT_TRUE(c.read_request());
    c.send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
  });
  const std::string message = error_of([&] { client_for(server).get("/short"); });
  EXPECT_TRUE(contains(message, "7 bytes of the Content-Length body still missing"));
  EXPECT_TRUE(contains(message, "GET /short"));
}

TEST(HttpClientTest, JsonFailureQuotesStatusAndBody) {
  HttpResponse r;
  r.status = 500;
  r.body = "<html>oops</html>";
  const std::string message = error_of([&] { (void)r.json(); });
  EXPECT_TRUE(contains(message, "not valid JSON"));
  EXPECT_TRUE(contains(message, "status 500"));
  EXPECT_TRUE(contains(message, "<html>oops</html>"));
}

TEST(HttpClientTest, ConnectionRefusedNamesTheRequest) {
  std::uint16_t port = 0;
  {
    TestServer server([](ServerConnection&) {});
    port = server.port();
  }  // closed: nothing listens there any more
  const std::string message = error_of([&] { HttpClient("127.0.0.1", port).get("/api/health"); });
  EXPECT_TRUE(contains(message, "cannot connect to 127.0.0.1:" + std::to_string(port)));
  EXPECT_TRUE(contains(message, "Connection refused"));
  EXPECT_TRUE(contains(message, "GET /api/health"));
}

TEST(HttpClientTest, RawExchangeReturnsEverythingUntilClose) {
  TestServer server([](ServerConnection& c) {
    ASSERT_TRUE(c.read_request());
    c.send("HTTP/1.1 400 Bad Request\r\nContent-Length: 3\r\n\r\nbad");
  });
  const std::string reply = client_for(server).raw_exchange("GARBAGE / HTTP/1.1\r\n\r\n");
  EXPECT_EQ(reply, "HTTP/1.1 400 Bad Request\r\nContent-Length: 3\r\n\r\nbad");
}

TEST(HttpClientTest, RawExchangeHalfCloseAndTimeoutOptions) {
  TestServer server([](ServerConnection& c) {
    const std::string got = c.read_until_eof();
    if (got == "half") {
      c.send("saw " + got);
    } else {
      c.send("partial");
      c.wait_for_peer_close();
    }
  });
  HttpClient client = client_for(server);
  client.set_timeout(300ms);
  EXPECT_EQ(client.raw_exchange("half", {.half_close = true}), "saw half");
  EXPECT_EQ(client.raw_exchange("open", {.half_close = false, .throw_on_timeout = false}), "");
  EXPECT_TRUE(contains(error_of([&] { client.raw_exchange("open"); }), "timed out after 300 ms waiting for the server to close the connection"));
}

TEST(HttpClientTest, ReadsAnEarlyResponseToARequestTheServerDidNotFinishReading) {
  TestServer server([](ServerConnection& c) {
    c.send("HTTP/1.1 413 Payload Too Large\r\nContent-Length: 5\r\nConnection: close\r\n\r\nlarge");
    c.pause(50ms);
  });
  const HttpResponse r = client_for(server).post("/big", std::string(256 * 1024, 'x'));
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.body, "large");
}

// ---- SseReader ---------------------------------------------------------------------------

TEST(SseReaderTest, ParsesChunkedStreamWithMultiLineDataCommentsAndIds) {
  TestServer server([](ServerConnection& c) {
    ASSERT_TRUE(c.read_request());
    c.send("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
    auto chunk = [&](std::string_view payload) {
      std::ostringstream size;
      size << std::hex << payload.size();
      c.send(size.str() + "\r\n" + std::string(payload) + "\r\n");
    };
    chunk(": hello\n\nid: 1\nevent: status\ndata: line one\ndata: line two\n\n");
    chunk("id: 2\r\ndata: {\"a\":");  // an event split across chunks, CRLF line endings
    c.pause(50ms);
    chunk("1}\r\n\r\n: keep-alive\n\n");
    chunk("retry: 1500\ndata\n\n");
    c.pause(50ms);
    c.send("0\r\n\r\n");
    c.wait_for_peer_close();
  });
  SseReader sse = client_for(server).sse("/api/runs/r1/events");
  EXPECT_EQ(sse.status(), 200);
  const SseEvent first = sse.expect_next(2s);
  EXPECT_EQ(first.id, "1");
  EXPECT_EQ(first.event, "status");
  EXPECT_EQ(first.data, "line one\nline two");
  const SseEvent second = sse.expect_next(2s);
  EXPECT_EQ(second.id, "2");
  EXPECT_EQ(second.event, "");
  EXPECT_EQ(boost::json::parse(second.data).at("a").as_int64(), 1);
  const SseEvent third = sse.expect_next(2s);
  EXPECT_EQ(third.id, "");
  EXPECT_EQ(third.data, "");
  EXPECT_EQ(third.retry, 1500);
  EXPECT_EQ(sse.heartbeats(), 2U);
  EXPECT_EQ(sse.last_event_id(), "2");
  EXPECT_FALSE(sse.next(2s).has_value());
  EXPECT_TRUE(sse.ended());
  EXPECT_EQ(server.requests().at(0).headers.at("accept"), "text/event-stream");
}

TEST(SseReaderTest, ReadsARawStreamingBodyAndTimesOutWithoutAnEvent) {
  TestServer server([](ServerConnection& c) {
    ASSERT_TRUE(c.read_request());
    c.send("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n\r\nid: 5\ndata: x\n\n");
    c.pause(400ms);
    c.send("data: partial");  // cut off by close: discarded
  });
  SseReader sse = client_for(server).sse("/stream", {{"Last-Event-ID", "4"}});
  EXPECT_EQ(sse.expect_next(2s).data, "x");
  const auto start = Clock::now();
  EXPECT_FALSE(sse.next(100ms).has_value());
  EXPECT_GE(Clock::now() - start, 90ms);
  EXPECT_FALSE(sse.ended());
  EXPECT_TRUE(sse.wait_for_end(3s));
  EXPECT_FALSE(sse.next(10ms).has_value());
  EXPECT_EQ(server.requests().at(0).headers.at("last-event-id"), "4");
}

TEST(SseReaderTest, ExpectNextSaysWhatItWaitedFor) {
  TestServer server([](ServerConnection& c) {
    ASSERT_TRUE(c.read_request());
    c.send("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n: ping\n\n");
    c.wait_for_peer_close();
  });
  SseReader sse = client_for(server).sse("/api/runs/x/events");
  const std::string message = error_of([&] { (void)sse.expect_next(100ms); });
  EXPECT_TRUE(contains(message, "no SSE event within 100 ms on GET /api/runs/x/events"));
  EXPECT_EQ(sse.heartbeats(), 1U);
  sse.close();
  EXPECT_FALSE(sse.next(10ms).has_value());
}

TEST(SseReaderTest, RejectsANonStreamResponseQuotingTheBody) {
  TestServer server([](ServerConnection& c) {
    ASSERT_TRUE(c.read_request());
    const std::string body = R"({"error":{"code":"not_found","message":"no run x"}})";
    c.send("HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body);
    c.wait_for_peer_close();
  });
  const std::string message = error_of([&] { (void)client_for(server).sse("/api/runs/x/events"); });
  EXPECT_TRUE(contains(message, "answered 404 Not Found"));
  EXPECT_TRUE(contains(message, "no run x"));
}

TEST(SseParserTest, HandlesCrOnlyLineEndingsSplitCrlfBomAndFieldsWithoutColon) {
  SseParser p;
  p.feed("\xEF\xBB");
  p.feed("\xBF" "data: a\r");
  p.feed("\ndata: b\r\r");
  p.feed("event\rid: 9\r\r");
  auto e = p.pop();
  ASSERT_TRUE(e);
  EXPECT_EQ(e->data, "a\nb");
  e = p.pop();
  ASSERT_TRUE(e);
  EXPECT_EQ(e->event, "");
  EXPECT_EQ(e->id, "9");
  EXPECT_FALSE(p.pop());
  p.feed("id\n\n");  // an empty id resets the last event id
  EXPECT_TRUE(p.pop());
  EXPECT_EQ(p.last_event_id(), "");
}

TEST(BodyDecoderTest, RejectsMalformedChunkSizes) {
  ResponseHead head;
  head.status = 200;
  head.headers["transfer-encoding"] = "chunked";
  BodyDecoder d = BodyDecoder::for_response(head, "GET");
  std::string out;
  EXPECT_TRUE(contains(error_of([&] { d.feed("zz\r\n", out); }), "malformed chunk size line"));
  BodyDecoder e = BodyDecoder::for_response(head, "GET");
  EXPECT_TRUE(contains(error_of([&] { e.feed("3\r\nabcX\r\n", out); }), "not followed by CRLF"));
}

// ---- TempDir, run_command, GitRepo ---------------------------------------------------------

TEST(TempDirTest, CreatesWritesAndRemoves) {
  std::filesystem::path kept;
  {
    TempDir dir;
    kept = dir.path();
    EXPECT_TRUE(std::filesystem::is_directory(kept));
    EXPECT_EQ(kept.parent_path(), std::filesystem::temp_directory_path());
    EXPECT_TRUE(kept.filename().string().starts_with("agentry-test-"));
    const auto file = dir.write_file("a/b/c.txt", "content");
    EXPECT_EQ(read_file(file), "content");
    EXPECT_THROW(dir.write_file("../escape", "x"), std::runtime_error);
    EXPECT_THROW(dir.write_file("/abs", "x"), std::runtime_error);
    TempDir moved = std::move(dir);
    EXPECT_EQ(moved.path(), kept);
  }
  if (std::getenv("AGENTRY_KEEP_TEST_DIRS") == nullptr) {
    EXPECT_FALSE(std::filesystem::exists(kept));
  }
}

TEST(RunCommandTest, CapturesOutputExitCodeCwdAndEnv) {
  TempDir dir;
  const auto r = run_command({"sh", "-c", "pwd; echo \"$AGENTRY_X\" >&2; exit 3"}, dir.path(),
                             {{"AGENTRY_X", "value"}});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.output, std::filesystem::canonical(dir.path()).string() + "\nvalue\n");
  EXPECT_TRUE(contains(error_of([] { (void)run_command({"/nonexistent/tool"}); }), "cannot execute /nonexistent/tool: No such file or directory"));
  EXPECT_TRUE(contains(error_of([] { (void)run_command({"sleep", "10"}, {}, {}, 200ms); }), "timed out after 200 ms"));
}

TEST(GitRepoTest, InitsAndCommitsFiles) {
  TempDir dir;
  GitRepo repo(dir.path() / "repo");
  const std::string sha = repo.commit_files({{"README.md", "hello\n"}, {"src/a.txt", "a\n"}}, "first");
  EXPECT_EQ(sha.size(), 40U);
  EXPECT_EQ(repo.head(), sha);
  EXPECT_EQ(repo.git({"log", "--format=%s %an <%ae>"}), "first Agentry Test <test@agentry.invalid>\n");
  EXPECT_EQ(repo.git({"branch", "--show-current"}), "main\n");
  repo.write_file("src/a.txt", "changed\n");
  EXPECT_EQ(repo.git({"status", "--porcelain"}), " M src/a.txt\n");
  EXPECT_TRUE(contains(error_of([&] { repo.git({"checkout", "no-such-branch"}); }), "failed in"));
}

// ---- DaemonProcess (with a shell script standing in for agentry) ---------------------------

std::filesystem::path fake_daemon(const TempDir& dir, std::string_view body) {
  const auto path = dir.write_file("bin/fake-agentry", "#!/bin/sh\n" + std::string(body));
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

constexpr std::string_view announcing_script = R"(
n=$(cat "$AGENTRY_HOME/n" 2>/dev/null || echo 41000)
echo $((n + 1)) > "$AGENTRY_HOME/n"
echo "args: $*" >&2
echo "home=$AGENTRY_HOME config=$AGENTRY_CONFIG_DIR extra=$EXTRA" >&2
echo "serving on ws://127.0.0.1:$n/"
echo "http api on http://127.0.0.1:$n/api/"
exec sleep 30
)";

TEST(DaemonProcessTest, StartsParsesPortsAndStops) {
  TempDir dir;
  DaemonOptions options;
  options.home = dir.path() / "home";
  options.binary = fake_daemon(dir, announcing_script);
  options.env = {{"EXTRA", "yes"}};
  options.extra_args = {"--verbose"};
  DaemonProcess daemon(options);
  daemon.start();
  EXPECT_EQ(daemon.port(), 41000);
  EXPECT_EQ(daemon.ws_port(), 41000);
  EXPECT_EQ(daemon.client().port(), 41000);
  EXPECT_TRUE(daemon.running());
  const std::string err = daemon.stderr_text();
  EXPECT_TRUE(contains(err, "args: serve --listen ws://127.0.0.1:0/ --verbose"));
  EXPECT_TRUE(contains(err, "home=" + options.home.string() + " config=" +
                             (options.home / "config").string() + " extra=yes"));
  EXPECT_EQ(daemon.stop(), 128 + SIGTERM);
  EXPECT_FALSE(daemon.running());

  daemon.start();  // a restart appends to the logs and finds the new announcement
  EXPECT_EQ(daemon.port(), 41001);
  daemon.kill9();
  EXPECT_EQ(daemon.exit_code(), 128 + SIGKILL);
  EXPECT_EQ(daemon.stop(), 128 + SIGKILL);
}

TEST(DaemonProcessTest, ReportsAnEarlyExitWithCodeAndStderr) {
  TempDir dir;
  DaemonProcess daemon({.home = dir.path(), .binary = fake_daemon(dir, "echo 'boom: bad config' >&2\nexit 3\n")});
  const std::string message = error_of([&] { daemon.start(); });
  EXPECT_TRUE(contains(message, "exited with code 3"));
  EXPECT_TRUE(contains(message, "boom: bad config"));
}

TEST(DaemonProcessTest, GivesUpAfterTheStartupTimeout) {
  TempDir dir;
  DaemonProcess daemon({.home = dir.path(),
                        .binary = fake_daemon(dir, "echo 'serving on ws://127.0.0.1:1/'\nexec sleep 30\n"),
                        .startup_timeout = 300ms});
  const std::string message = error_of([&] { daemon.start(); });
  EXPECT_TRUE(contains(message, "did not print"));
  EXPECT_TRUE(contains(message, "serving on ws://127.0.0.1:1/"));
  EXPECT_FALSE(daemon.running());
}

TEST(DaemonProcessTest, BinaryPathExplainsAMissingAgentryBin) {
  const char* saved = std::getenv("AGENTRY_BIN");
  const std::string saved_value = saved != nullptr ? saved : "";
  ::unsetenv("AGENTRY_BIN");
  EXPECT_TRUE(contains(error_of([] { (void)DaemonProcess::binary_path(); }), "AGENTRY_BIN is not set"));
  ::setenv("AGENTRY_BIN", "/nonexistent/agentry", 1);
  EXPECT_TRUE(contains(error_of([] { (void)DaemonProcess::binary_path(); }), "is not an executable file"));
  if (saved != nullptr) {
    ::setenv("AGENTRY_BIN", saved_value.c_str(), 1);
  } else {
    ::unsetenv("AGENTRY_BIN");
  }
}

bool process_gone(pid_t pid) {
  // Gone, or a zombie waiting for a (possibly absent) init to reap it.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto paren = line.rfind(')');
  return paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] == 'Z';
}

TEST(DaemonProcessTest, DestructionKillsTheDaemonAndItsChildren) {
  TempDir dir;
  pid_t daemon_pid = 0;
  pid_t child_pid = 0;
  {
    DaemonProcess daemon({.home = dir.path(), .binary = fake_daemon(dir, R"(
sleep 30 &
echo $! > "$AGENTRY_HOME/child.pid"
echo "http api on http://127.0.0.1:4242/api/"
exec sleep 30
)")});
    daemon.start();
    daemon_pid = daemon.pid();
    child_pid = std::stoi(read_file(dir.path() / "child.pid"));
    EXPECT_FALSE(process_gone(child_pid));
  }
  for (int i = 0; i < 100 && !process_gone(child_pid); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(process_gone(daemon_pid));
  EXPECT_TRUE(process_gone(child_pid));
}

// ---- no descriptor leaks -------------------------------------------------------------------

std::size_t open_fds() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

TEST(SupportLibraryTest, LeaksNoDescriptors) {
  TestServer server([](ServerConnection& c) {
    if (!c.read_request()) return;
    c.send("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\n\n");
  });
  const std::size_t before = open_fds();
  for (int i = 0; i < 5; ++i) {
    HttpClient client = client_for(server);
    (void)client.get("/x");
    SseReader sse = client.sse("/events");
    (void)sse.next(1s);
    (void)run_command({"true"});
  }
  // The server thread closes its side of the last connection asynchronously.
  for (int i = 0; i < 100 && open_fds() != before; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(open_fds(), before);
}

TEST(TimelineStreamTest, ScannerReadsWhatAFullParserReads) {
  const std::string delta =
      R"({"runId":"r1","cursor":null,"kind":"message.delta","attemptNumber":2,"at":"2026-01-01T00:00:00.000Z",)"
      R"("payload":{"text":"a \"q\" \\ \u00e9\ud83d\ude00\n","itemId":"msg-1","index":3,"emittedAtNs":12345,)"
      R"("nested":{"x":[1,{"text":"no"}]}},"ephemeral":true,"conflated":true})";
  Envelope e;
  ASSERT_TRUE(scan_envelope(delta, e));
  EXPECT_EQ(e.kind, "message.delta");
  EXPECT_FALSE(e.cursor);
  EXPECT_EQ(e.attempt, 2);
  EXPECT_EQ(e.item, "msg-1");
  EXPECT_EQ(e.text, std::string(boost::json::parse(delta).at("payload").at("text").as_string()));
  EXPECT_TRUE(e.ephemeral);
  EXPECT_TRUE(e.conflated);
  EXPECT_EQ(e.emitted_at_ns, 12345);
  ASSERT_TRUE(scan_envelope(R"({"cursor":7,"kind":"tool.completed","payload":{"toolCallId":"t"}})", e));
  EXPECT_EQ(e.cursor, 7);
  EXPECT_EQ(e.item, "t");
  EXPECT_FALSE(scan_envelope(R"({"cursor":7,"kind":"x")", e));
  EXPECT_FALSE(scan_envelope(R"({"payload":{"text":"\ud800"}})", e));
}

TEST(TimelineStreamTest, CheckerFindsLateDeltasGapsAndWrongText) {
  auto delta = [](std::string text) {
    Envelope e;
    e.kind = "message.delta";
    e.item = "m";
    e.attempt = 1;
    e.text = std::move(text);
    e.ephemeral = true;
    return e;
  };
  auto durable = [](std::int64_t cursor, std::string kind, std::string text = {}) {
    Envelope e;
    e.kind = std::move(kind);
    e.cursor = cursor;
    e.attempt = 1;
    e.item = e.kind == "message.completed" ? "m" : "";
    e.text = std::move(text);
    return e;
  };
  TimelineChecker good;
  for (const auto& e : {durable(1, "attempt.started"), delta("ab"), delta("c"), durable(2, "message.completed", "abc"),
                        durable(3, "attempt.finished"), durable(4, "run.finished")})
    good.on_envelope(e);
  EXPECT_EQ(good.violations(), 0u);
  EXPECT_TRUE(good.finished());

  TimelineChecker bad(0, /*keep_text=*/false);
  for (const auto& e : {durable(1, "attempt.started"), delta("ab"), durable(2, "message.completed", "abX"),
                        delta("late"), durable(4, "attempt.finished"), durable(5, "run.finished"), delta("later")})
    bad.on_envelope(e);
  // wrong text, a delta after its completion, a gap (2 -> 4), a delta after run.finished
  EXPECT_EQ(bad.violations(), 4u);
}


}  // namespace
}  // namespace agentry::test
