#include "browser_fixture.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace agentry::test {
namespace json = boost::json;
namespace fs = std::filesystem;

Site::Site() {
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
      std::thread([c] { serve(c); }).detach();
    }
  });
}

Site::~Site() {
  stopping_ = true;
  ::shutdown(fd_, SHUT_RDWR);
  ::close(fd_);
  thread_.join();
}

void Site::serve(int c) {
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

const agentry_backend_factory_t* browser_factory() {
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

Instance::Instance() {
  backend_ = browser_factory()->create_backend(browser_factory(), host_.table(), "browser");
  EXPECT_NE(backend_, nullptr);
  EXPECT_EQ(backend_->init(backend_), AGENTRY_OK);
}

Instance::~Instance() {
  destroy();
  EXPECT_TRUE(host_.violations().empty()) << host_.violations().front();
}

void Instance::destroy() {
  if (backend_) backend_->destroy(backend_);
  backend_ = nullptr;
}

agentry_status_t Instance::start(json::object browser, const std::string& profile, bool resume,
                                 std::vector<std::string> env, const std::string& prompt) {
  browser["profileDir"] = profile;
  const std::string config = json::serialize(json::object{{"backendConfig", {{"browser", browser}}}});
  const std::string input = json::serialize(json::object{{"prompt", prompt}});
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

json::object Instance::wait_finished(std::chrono::seconds limit) {
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

std::string Instance::messages() const {
  std::string out;
  for (const auto& ev : host_.events())
    if (ev.type == AGENTRY_EVENT_MESSAGE_COMPLETED) out += std::string(ev.payload.at("text").as_string()) + "\n";
  return out;
}

}  // namespace agentry::test
