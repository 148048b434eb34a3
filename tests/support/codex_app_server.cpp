#include "support/codex_app_server.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "support/mock_model.hpp"
#include "support/socket_io.hpp"
#include "support/source_tree.hpp"
#include "support/subprocess.hpp"


namespace agentry::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

bool connects(const sockaddr* address, socklen_t length, int family) {
  const int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const bool ok = ::connect(fd, address, length) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

CodexHome::CodexHome(const MockModel& mock) {
  std::string config = read_file(source_tree() / "tests/e2e/fixtures/codex-config.toml");
  const std::string placeholder = "@MOCK_BASE_URL@";
  // Every occurrence: the file's header comment names the placeholder too.
  for (std::size_t at = config.find(placeholder); at != std::string::npos; at = config.find(placeholder, at))
    config.replace(at, placeholder.size(), mock.openai_base_url());
  dir_.write_file("codex-home/config.toml", config);
}

AppServer::AppServer(const fs::path& binary, const CodexHome& home, Kind kind) {
  SpawnOptions options;
  std::string listen;
  if (kind == Kind::ws) {
    url_ = "ws://127.0.0.1:" + std::to_string(free_loopback_port());
    listen = url_;
  } else {
    socket_ = (dir_.path() / "app-server.sock").string();
    listen = "unix://" + socket_;
  }
  options.argv = {binary.string(), "app-server", "--listen", listen};
  // codex links no sandbox helper while CODEX_HOME is in the temp dir, and an old system
  // bubblewrap (Debian 12's) then cannot start its sandbox: give it the link on PATH, as
  // a user running a server there is told to (docs/backends/codex.md, "The Linux sandbox").
  const fs::path helpers = dir_.make_dir("sandbox-helpers");
  fs::create_symlink(binary, helpers / "codex-linux-sandbox");
  const char* path = std::getenv("PATH");
  options.env = environment_with({{"CODEX_HOME", home.path().string()},
                                  {kMockKeyName, kMockKeyValue},
                                  {"HOME", dir_.make_dir("home").string()},
                                  {"PATH", helpers.string() + ":" + (path ? path : "/usr/bin:/bin")}});
  options.cwd = dir_.path();
  options.new_process_group = true;
  options.die_with_parent = true;
  pid_ = spawn_process(options);
  for (int i = 0; i < 300; ++i) {  // up to 15 s for a cold start
    if (try_reap(pid_)) throw std::runtime_error("codex app-server --listen " + listen + " exited at startup");
    if (kind == Kind::ws) {
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      address.sin_port = htons(static_cast<uint16_t>(std::stoi(url_.substr(url_.rfind(':') + 1))));
      if (connects(reinterpret_cast<sockaddr*>(&address), sizeof address, AF_INET)) return;
    } else {
      sockaddr_un address{};
      address.sun_family = AF_UNIX;
      socket_.copy(address.sun_path, sizeof address.sun_path - 1);
      if (connects(reinterpret_cast<sockaddr*>(&address), sizeof address, AF_UNIX)) return;
    }
    std::this_thread::sleep_for(50ms);
  }
  stop_process_group(pid_);
  throw std::runtime_error("codex app-server --listen " + listen + " did not become ready");
}

AppServer::~AppServer() { stop_process_group(pid_); }

}  // namespace agentry::test
