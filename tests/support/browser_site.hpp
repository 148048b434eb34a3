// The loopback site the browser backend's tests drive: a form (/), its result page
// (/result?q=), a link (/other), a download (/file.txt), a page setting a cookie
// (/set-cookie: flavour=ginger) and one showing the cookie it was sent (/show-cookie:
// "cookie: [...]"). A thread per connection, one request per connection. Shared by the
// plugin tests (through the C ABI) and the daemon tests.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace agentry::test {

class BrowserSite {
 public:
  BrowserSite();
  ~BrowserSite();
  BrowserSite(const BrowserSite&) = delete;
  BrowserSite& operator=(const BrowserSite&) = delete;
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  static void serve(int c);
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace agentry::test
