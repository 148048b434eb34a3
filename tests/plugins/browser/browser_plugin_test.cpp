// The browser plugin through its C ABI against the real Chromium and a loopback site.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>

#include "recording_host.hpp"
#include "support/temp_dir.hpp"

namespace agentry::test {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;

// The test site: a thread per connection, one request per connection (Connection: close).
class Site {
 public:
  Site() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 64);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      for (;;) {
        const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) return;
        if (stopping_) {
          ::close(c);
          return;
        }
        std::thread([this, c] { serve(c); }).detach();
      }
    });
  }
  ~Site() {
    stopping_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  static void serve(int c) {
    std::string req;
    char buf[4096];
    while (req.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      req.append(buf, static_cast<std::size_t>(n));
    }
    const std::string line = req.substr(0, req.find("\r\n"));
    std::string target = line.substr(line.find(' ') + 1);
    target = target.substr(0, target.find(' '));
    std::string cookie;
    if (auto p = req.find("\r\nCookie: "); p != std::string::npos) cookie = req.substr(p + 10, req.find("\r\n", p + 2) - p - 10);
    std::string type = "text/html", extra, body;
    if (target == "/") {
      body = "<html><head><title>Form</title></head><body><h1>The form</h1>"
             "<form action=\"/result\" method=\"get\"><input id=\"q\" name=\"q\" placeholder=\"words\">"
             "<button id=\"go\" type=\"submit\">Send</button></form>"
             "<a id=\"other\" href=\"/other\">Other page</a> <a id=\"file\" href=\"/file.txt\" download>Get the file</a>"
             "</body></html>";
    } else if (target.rfind("/result?q=", 0) == 0) {
      std::string q = target.substr(10);
      for (auto& ch : q) if (ch == '+') ch = ' ';
      body = "<html><head><title>Result</title></head><body><p id=\"out\">You sent: " + q + "</p></body></html>";
    } else if (target == "/other") {
      body = "<html><head><title>Other</title></head><body>The other page</body></html>";
    } else if (target == "/file.txt") {
      type = "text/plain";
      extra = "Content-Disposition: attachment; filename=\"report.txt\"\r\n";
      body = "downloaded content\n";
    } else if (target == "/set-cookie") {
      extra = "Set-Cookie: flavour=ginger; Max-Age=3600; Path=/\r\n";
      body = "<html><head><title>Set</title></head><body>cookie set</body></html>";
    } else if (target == "/show-cookie") {
      body = "<html><head><title>Show</title></head><body>cookie: [" + cookie + "]</body></html>";
    } else {
      body = "not found";
    }
    const std::string resp = "HTTP/1.1 200 OK\r\nContent-Type: " + type + "\r\nContent-Length: " +
                             std::to_string(body.size()) + "\r\n" + extra + "Connection: close\r\n\r\n" + body;
    ::send(c, resp.data(), resp.size(), MSG_NOSIGNAL);
    ::close(c);
  }
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

const agentry_backend_factory_t* factory() {
  static const agentry_backend_factory_t* f = load_backend_factory("AGENTRY_BROWSER_PLUGIN");
  return f;
}

// Chromium processes whose command line names `profile`.
int chromium_processes(const std::string& profile) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmd.find(profile) != std::string::npos) {
      std::ifstream st(entry.path() / "stat");
      std::string s;
      std::getline(st, s);
      const auto p = s.rfind(')');
      if (p != std::string::npos && p + 2 < s.size() && s[p + 2] != 'Z') ++count;
    }
  }
  return count;
}

class Instance {
 public:
  Instance() {
    backend_ = factory()->create_backend(factory(), host_.table(), "browser");
    EXPECT_NE(backend_, nullptr);
    EXPECT_EQ(backend_->init(backend_), AGENTRY_OK);
  }
  ~Instance() {
    if (backend_) backend_->destroy(backend_);
    EXPECT_TRUE(host_.violations().empty()) << host_.violations().front();
  }
  agentry_status_t start(json::object browser, const std::string& profile, bool resume = false,
                         std::vector<std::string> env = {}) {
    browser["profileDir"] = profile;
    const std::string config = json::serialize(json::object{{"backendConfig", {{"browser", browser}}}});
    const std::string input = R"({"prompt":"go"})";
    const std::string ws = workspace_.path().string();
    std::vector<const char*> e;
    env.push_back("AGENTRY_RUN_ID=run-1");
    for (auto& s : env) e.push_back(s.c_str());
    e.push_back(nullptr);
    agentry_start_params_t p{};
    p.struct_size = sizeof p;
    p.run_id = "run-1";
    p.session_id = resume ? "run-1/s1" : "run-1/s0";
    p.attempt_number = ++attempts_;
    p.workspace_path = ws.c_str();
    p.input_json = input.c_str();
    p.input_size = input.size();
    p.config_json = config.c_str();
    p.config_size = config.size();
    const std::string token = "browser-run-1";
    if (resume) p.resume_token = token.c_str(), p.resume_token_size = token.size();
    p.env = e.data();
    host_.begin_attempt();
    finished_before_ = host_.finished_count();
    return backend_->start(backend_, &p);
  }
  json::object wait_finished(std::chrono::seconds limit = std::chrono::seconds(90)) {
    EXPECT_TRUE(host_.wait_until([&](const auto&) { return false; }, std::chrono::milliseconds(0)) || true);
    const bool done = host_.wait_until(
        [&](const std::vector<RecordedEvent>& events) {
          int n = 0;
          for (const auto& ev : events) n += ev.type == AGENTRY_EVENT_FINISHED;
          return n > finished_before_;
        },
        limit);
    EXPECT_TRUE(done);
    auto events = host_.events();
    for (auto it = events.rbegin(); it != events.rend(); ++it)
      if (it->type == AGENTRY_EVENT_FINISHED) return it->payload;
    return {};
  }
  std::string messages() const {
    std::string out;
    for (const auto& ev : host_.events())
      if (ev.type == AGENTRY_EVENT_MESSAGE_COMPLETED) out += std::string(ev.payload.at("text").as_string()) + "\n";
    return out;
  }
  const agentry_backend_t* backend() const { return backend_; }
  RecordingHost host_;
  TempDir workspace_;
  TempDir profile_;

 private:
  const agentry_backend_t* backend_ = nullptr;
  uint32_t attempts_ = 0;
  int finished_before_ = 0;
};

json::object step(json::object o) { return o; }

class BrowserPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/chromium")) GTEST_SKIP() << "/usr/bin/chromium is not installed (apt-get install chromium)";
    ASSERT_NE(factory(), nullptr);
  }
};

TEST_F(BrowserPlugin, FillsTheFormReadsTheResultAndSavesAScreenshot) {
  Site site;
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  json::array steps{step({{"action", "navigate"}, {"url", site.url("/")}}),
                    step({{"action", "read"}}),
                    step({{"action", "type"}, {"selector", "#q"}, {"text", "hello browser"}}),
                    step({{"action", "click"}, {"selector", "#go"}}),
                    step({{"action", "waitFor"}, {"text", "You sent"}}),
                    step({{"action", "read"}}),
                    step({{"action", "screenshot"}, {"name", "result"}}),
                    step({{"action", "back"}}),
                    step({{"action", "finish"}, {"summary", "all done"}})};
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(in.start({{"steps", steps}}, profile), AGENTRY_OK);
  const json::object fin = in.wait_finished();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  std::cerr << "whole script took " << ms << " ms\n";
  EXPECT_EQ(fin.at("outcome"), "success") << json::serialize(fin);
  const std::string text = in.messages();
  EXPECT_NE(text.find("You sent: hello browser"), std::string::npos) << text;
  EXPECT_NE(text.find("link \"Other page\""), std::string::npos) << text;
  EXPECT_NE(text.find("all done"), std::string::npos);
  const fs::path png = in.workspace_.path() / "browser-artifacts" / "result.png";
  ASSERT_TRUE(fs::exists(png));
  const std::string bytes = read_file(png);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(chromium_processes(profile), 0);
  int started = 0, completed = 0;
  for (const auto& ev : in.host_.events()) {
    started += ev.type == AGENTRY_EVENT_TOOL_STARTED;
    completed += ev.type == AGENTRY_EVENT_TOOL_COMPLETED;
  }
  EXPECT_EQ(started, 8);
  EXPECT_EQ(completed, 8);
}

TEST_F(BrowserPlugin, ClicksByRefAndDownloadsIntoTheWorkspace) {
  Site site;
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  json::array steps{step({{"action", "navigate"}, {"url", site.url("/")}}), step({{"action", "read"}}),
                    step({{"action", "download"}, {"selector", "#file"}}),
                    step({{"action", "click"}, {"ref", "e3"}}), step({{"action", "read"}})};
  ASSERT_EQ(in.start({{"steps", steps}}, profile), AGENTRY_OK);
  const json::object fin = in.wait_finished();
  EXPECT_EQ(fin.at("outcome"), "success") << json::serialize(fin);
  const fs::path file = in.workspace_.path() / "browser-artifacts" / "report.txt";
  ASSERT_TRUE(fs::exists(file));
  EXPECT_EQ(read_file(file), "downloaded content\n");
  EXPECT_NE(in.messages().find("The other page"), std::string::npos) << in.messages();
}

TEST_F(BrowserPlugin, ACookieSurvivesIntoTheNextAttempt) {
  Site site;
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  ASSERT_EQ(in.start({{"steps", json::array{step({{"action", "navigate"}, {"url", site.url("/set-cookie")}})}}}, profile),
            AGENTRY_OK);
  EXPECT_EQ(in.wait_finished().at("outcome"), "success");
  ASSERT_EQ(in.start({{"steps", json::array{step({{"action", "navigate"}, {"url", site.url("/show-cookie")}}),
                                            step({{"action", "read"}})}}},
                     profile, true),
            AGENTRY_OK);
  EXPECT_EQ(in.wait_finished().at("outcome"), "success");
  EXPECT_NE(in.messages().find("cookie: [flavour=ginger]"), std::string::npos) << in.messages();
}

TEST_F(BrowserPlugin, InterruptLeavesNoChromium) {
  Site site;
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  json::array steps{step({{"action", "navigate"}, {"url", site.url("/")}}),
                    step({{"action", "waitFor"}, {"text", "never there"}, {"timeoutMs", 60000}})};
  ASSERT_EQ(in.start({{"steps", steps}}, profile), AGENTRY_OK);
  ASSERT_TRUE(in.host_.wait_until(
      [](const auto& events) {
        int n = 0;
        for (const auto& ev : events) n += ev.type == AGENTRY_EVENT_TOOL_STARTED;
        return n >= 2;
      },
      std::chrono::seconds(60)));
  EXPECT_GT(chromium_processes(profile), 0);
  in.backend()->interrupt(in.backend(), "stop");
  const json::object fin = in.wait_finished(std::chrono::seconds(15));
  EXPECT_EQ(fin.at("outcome"), "interrupted") << json::serialize(fin);
  EXPECT_EQ(chromium_processes(profile), 0);
}

TEST_F(BrowserPlugin, AMissingBinaryEndsWithAClearReason) {
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  ASSERT_EQ(in.start({{"steps", json::array{step({{"action", "read"}})}}}, profile, false,
                     {"AGENTRY_CHROMIUM=/nonexistent"}),
            AGENTRY_OK);
  const json::object fin = in.wait_finished();
  EXPECT_EQ(fin.at("outcome"), "error");
  const std::string message(fin.at("message").as_string());
  EXPECT_NE(message.find("/nonexistent"), std::string::npos) << message;
  EXPECT_NE(message.find("apt-get install chromium"), std::string::npos) << message;
}

TEST_F(BrowserPlugin, AFailingStepNamesTheStep) {
  Site site;
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  json::array steps{step({{"action", "navigate"}, {"url", site.url("/")}}),
                    step({{"action", "click"}, {"selector", "#nope"}})};
  ASSERT_EQ(in.start({{"steps", steps}}, profile), AGENTRY_OK);
  const json::object fin = in.wait_finished();
  EXPECT_EQ(fin.at("outcome"), "error");
  const std::string message(fin.at("message").as_string());
  EXPECT_NE(message.find("step 2 (click #nope)"), std::string::npos) << message;
  EXPECT_EQ(chromium_processes(profile), 0);
}

// A host of ABI 1.2 or later knows the live view event (type 15): frames flow.
TEST_F(BrowserPlugin, LiveViewSendsFramesToANewerHost) {
  Site site;
  Instance in;
  const_cast<agentry_host_t*>(in.host_.table())->abi_version.minor = 2;  // test host: claim ABI 1.2
  const std::string profile = (in.profile_.path() / "p").string();
  json::array steps{step({{"action", "navigate"}, {"url", site.url("/")}}),
                    step({{"action", "type"}, {"selector", "#q"}, {"text", "frames"}}),
                    step({{"action", "waitFor"}, {"text", "never"}, {"timeoutMs", 1500}})};
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(in.start({{"steps", steps}, {"liveView", true}}, profile), AGENTRY_OK);
  ASSERT_TRUE(in.host_.wait_until(
      [](const auto& events) {
        for (const auto& ev : events)
          if (ev.type == AGENTRY_EVENT_TOOL_COMPLETED) return true;
        return false;
      },
      std::chrono::seconds(60)));
  std::cerr << "start to first page loaded: "
            << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count()
            << " ms\n";
  const json::object fin = in.wait_finished();
  EXPECT_EQ(fin.at("outcome"), "error");  // the waitFor times out
  int frames = 0;
  for (const auto& ev : in.host_.events())
    if (ev.type == 15) {
      ++frames;
      EXPECT_EQ(ev.payload.at("mime"), "image/jpeg");
      EXPECT_TRUE(ev.flags & AGENTRY_EVENT_FLAG_EPHEMERAL);
      EXPECT_GT(ev.payload.at("width").as_int64(), 0);
      EXPECT_FALSE(ev.payload.at("data").as_string().empty());
    }
  EXPECT_GT(frames, 0);
  EXPECT_LE(frames, 20);  // at most ~4 per second
}

TEST_F(BrowserPlugin, LiveViewSaysUnavailableWhenChromiumCannotStart) {
  Instance in;
  const_cast<agentry_host_t*>(in.host_.table())->abi_version.minor = 2;
  const std::string profile = (in.profile_.path() / "p").string();
  ASSERT_EQ(in.start({{"steps", json::array{step({{"action", "read"}})}}, {"liveView", true}, {"chromium", "/nonexistent"}},
                     profile),
            AGENTRY_OK);
  EXPECT_EQ(in.wait_finished().at("outcome"), "error");
  int unavailable = 0;
  for (const auto& ev : in.host_.events())
    if (ev.type == 15 && ev.payload.at("status") == "unavailable") ++unavailable;
  EXPECT_EQ(unavailable, 1);
}

TEST_F(BrowserPlugin, NoFramesByDefault) {
  Instance in;
  const_cast<agentry_host_t*>(in.host_.table())->abi_version.minor = 2;
  const std::string profile = (in.profile_.path() / "p").string();
  ASSERT_EQ(in.start({{"steps", json::array{step({{"action", "read"}})}}, {"chromium", "/nonexistent"}}, profile), AGENTRY_OK);
  EXPECT_EQ(in.wait_finished().at("outcome"), "error");
  for (const auto& ev : in.host_.events()) EXPECT_NE(ev.type, 15);
}

}  // namespace
}  // namespace agentry::test
