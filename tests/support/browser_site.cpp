#include "support/browser_site.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace agentry::test {

BrowserSite::BrowserSite() {
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

BrowserSite::~BrowserSite() {
  stopping_ = true;
  ::shutdown(fd_, SHUT_RDWR);
  ::close(fd_);
  thread_.join();
}

void BrowserSite::serve(int c) {
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


}  // namespace agentry::test
