#include "codex_fixture.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "support/subprocess.hpp"

namespace agentry::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

std::optional<std::string> from_paths_env(const fs::path& file) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("AGENTRY_CODEX_BIN=", 0) == 0) return line.substr(18);
  return std::nullopt;
}

// Stops a process group started by these fixtures: SIGTERM, then SIGKILL.
void stop_group(pid_t pid) {
  if (pid <= 0) return;
  ::kill(-pid, SIGTERM);
  if (!wait_for_exit(pid, 5000ms)) {
    ::kill(-pid, SIGKILL);
    static_cast<void>(wait_for_exit(pid, 5000ms));
  }
  ::kill(-pid, SIGKILL);  // anything left in the group
}

// A TCP port free right now on 127.0.0.1 (app-server prints no bound port for :0).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot find a free port");
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

bool connects(const sockaddr* address, socklen_t length, int family) {
  const int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const bool ok = ::connect(fd, address, length) == 0;
  ::close(fd);
  return ok;
}

std::vector<std::string> codex_env(const CodexHome& home) {
  return environment_with({{"CODEX_HOME", home.path().string()}, {"MOCK_API_KEY", "dummy"}});
}

}  // namespace

std::optional<std::string> codex_binary() {
  if (const char* bin = std::getenv("AGENTRY_CODEX_BIN"); bin != nullptr && *bin != '\0' && ::access(bin, X_OK) == 0)
    return std::string(bin);
  fs::path root;
  if (const char* dir = std::getenv("AGENTRY_AGENTS_DIR"); dir != nullptr && *dir != '\0')
    root = dir;
  else if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache != '\0')
    root = fs::path(cache) / "agentry/agents";
  else if (const char* home = std::getenv("HOME"); home != nullptr)
    root = fs::path(home) / ".cache/agentry/agents";
  std::optional<std::string> bin = from_paths_env(root / "codex-0.171.0_claude-code-2.1.332/paths.env");
  if (bin && ::access(bin->c_str(), X_OK) == 0) return bin;
  return std::nullopt;
}

MockModel::MockModel() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
  SpawnOptions options;
  options.argv = {"python3", std::string(AGENTRY_E2E_DIR) + "/mock_model/server.py", "--port", "0"};
  options.env = environment_with({});
  options.stdout_fd = fds[1];
  options.new_process_group = true;
  pid_ = spawn_process(options);
  ::close(fds[1]);
  std::string first;
  char c = 0;
  while (first.size() < 200 && ::read(fds[0], &c, 1) == 1 && c != '\n') first.push_back(c);
  ::close(fds[0]);  // later lines go nowhere; the server only prints this one
  const std::string prefix = "listening on 127.0.0.1:";
  if (first.rfind(prefix, 0) != 0) {
    stop_group(pid_);
    throw std::runtime_error("the mock model did not start: " + first);
  }
  port_ = std::stoi(first.substr(prefix.size()));
}

MockModel::~MockModel() { stop_group(pid_); }

CodexHome::CodexHome(const MockModel& mock) {
  std::string config = read_file(fs::path(AGENTRY_E2E_DIR) / "fixtures/codex-config.toml");
  const std::string placeholder = "@MOCK_BASE_URL@";
  // Every occurrence: the file's header comment names the placeholder too.
  for (std::size_t at = config.find(placeholder); at != std::string::npos; at = config.find(placeholder, at))
    config.replace(at, placeholder.size(), mock.base_url());
  dir_.write_file("codex-home/config.toml", config);
}

AppServer::AppServer(const std::string& binary, const CodexHome& home, Kind kind) {
  SpawnOptions options;
  std::string listen;
  if (kind == Kind::ws) {
    const int port = free_port();
    url_ = "ws://127.0.0.1:" + std::to_string(port);
    listen = url_;
  } else {
    socket_ = (dir_.path() / "app-server.sock").string();
    listen = "unix://" + socket_;
  }
  options.argv = {binary, "app-server", "--listen", listen};
  options.env = codex_env(home);
  options.cwd = dir_.path();
  options.new_process_group = true;
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
  stop_group(pid_);
  throw std::runtime_error("codex app-server --listen " + listen + " did not become ready");
}

AppServer::~AppServer() { stop_group(pid_); }

}  // namespace agentry::test
