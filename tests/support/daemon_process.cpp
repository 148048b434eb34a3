#include "support/daemon_process.hpp"

#include "support/test_store.hpp"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string_view>
#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/socket_io.hpp"
#include "support/subprocess.hpp"

namespace agentry::test {

namespace {

constexpr std::string_view http_line_prefix = "http api on http://";
constexpr std::string_view ws_line_prefix = "serving on ws://";
constexpr std::string_view socket_line_prefix = "serving on unix://";
constexpr std::string_view compat_line_prefix = "agent-runner api on http://";

std::string read_from(const std::filesystem::path& path, std::uintmax_t offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(static_cast<std::streamoff>(offset));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string tail(const std::string& text, std::size_t max) {
  if (text.size() <= max) return text;
  return "..." + text.substr(text.size() - max);
}

// "127.0.0.1:5555/api/" -> 5555
std::optional<std::uint16_t> port_of(std::string_view rest) {
  const std::string_view authority = rest.substr(0, rest.find('/'));
  const auto colon = authority.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view digits = authority.substr(colon + 1);
  if (digits.empty() || digits.size() > 5) return std::nullopt;
  unsigned value = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value == 0 || value > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

std::string signal_name(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return abbrev == nullptr ? "signal " + std::to_string(signal) : std::string("SIG") + abbrev;
}

UniqueFd open_log(const std::filesystem::path& path, std::uintmax_t& size) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!fd) throw std::runtime_error(errno_message("cannot open " + path.string(), errno));
  struct stat st {};
  size = ::fstat(fd.get(), &st) == 0 ? static_cast<std::uintmax_t>(st.st_size) : 0;
  return fd;
}

}  // namespace

std::filesystem::path DaemonProcess::binary_path() {
  const char* env = std::getenv("AGENTRY_BIN");
  if (env == nullptr || *env == '\0') {
    throw std::runtime_error(
        "AGENTRY_BIN is not set: it must name the agentry binary under test (ctest sets it; "
        "when running a test binary by hand use e.g. AGENTRY_BIN=$PWD/build/host/agentry)");
  }
  std::filesystem::path path(env);
  if (!std::filesystem::is_regular_file(path) || ::access(path.c_str(), X_OK) != 0) {
    throw std::runtime_error("AGENTRY_BIN=" + path.string() +
                             " is not an executable file (build the agentry target first)");
  }
  return path;
}

DaemonProcess::DaemonProcess(DaemonOptions options) : options_(std::move(options)) {
  if (options_.home.empty()) throw std::invalid_argument("DaemonOptions::home must be set");
  if (options_.config_dir.empty()) options_.config_dir = options_.home / "config";
}

DaemonProcess::~DaemonProcess() {
  try {
    kill_group();
    if (!reaped_) (void)wait_for_exit(pid_, std::chrono::seconds(10));
  } catch (...) {  // a destructor must not throw; the process is SIGKILLed regardless
  }
}

void DaemonProcess::kill_group() noexcept {
  for (const pid_t group : groups_) ::killpg(group, SIGKILL);
  if (!reaped_) ::kill(pid_, SIGKILL);
}

void DaemonProcess::start() {
  if (running()) throw std::logic_error("DaemonProcess::start: the daemon is already running");
  const std::filesystem::path binary =
      options_.binary.empty() ? binary_path() : options_.binary;
  std::filesystem::create_directories(options_.home);
  std::filesystem::create_directories(options_.config_dir);
  UniqueFd out = open_log(stdout_path(), stdout_offset_);
  UniqueFd err = open_log(stderr_path(), stderr_offset_);

  EnvOverrides env{{"AGENTRY_HOME", options_.home.string()},
                   {"AGENTRY_CONFIG_DIR", options_.config_dir.string()}};
  const auto store = store_env(options_.home);
  env.insert(env.end(), store.begin(), store.end());
  env.insert(env.end(), options_.env.begin(), options_.env.end());

  SpawnOptions spawn;
  spawn.argv = {binary.string(), "serve", "--listen", "ws://127.0.0.1:0/"};
  spawn.argv.insert(spawn.argv.end(), options_.extra_args.begin(), options_.extra_args.end());
  spawn.env = environment_with(env);
  spawn.stdout_fd = out.get();
  spawn.stderr_fd = err.get();
  spawn.new_process_group = true;
  spawn.die_with_parent = options_.die_with_test_process;

  port_ = 0;
  ws_port_ = 0;
  socket_path_.clear();
  compat_port_ = 0;
  exit_code_.reset();
  pid_ = spawn_process(spawn);
  reaped_ = false;
  groups_.push_back(pid_);
  wait_for_ready();
}

void DaemonProcess::wait_for_ready() {
  const auto deadline = Clock::now() + options_.startup_timeout;
  std::size_t scanned = 0;  // bytes of complete lines already looked at
  std::string text;
  for (;;) {
    text = read_from(stdout_path(), stdout_offset_);
    for (std::size_t end; (end = text.find('\n', scanned)) != std::string::npos; scanned = end + 1) {
      std::string_view line = std::string_view(text).substr(scanned, end - scanned);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.starts_with(ws_line_prefix)) {
        ws_port_ = port_of(line.substr(ws_line_prefix.size())).value_or(0);
      } else if (line.starts_with(socket_line_prefix)) {
        socket_path_ = std::string(line.substr(socket_line_prefix.size()));
      } else if (line.starts_with(compat_line_prefix)) {
        compat_port_ = port_of(line.substr(compat_line_prefix.size())).value_or(0);
      } else if (line.starts_with(http_line_prefix)) {
        if (const auto port = port_of(line.substr(http_line_prefix.size()))) {
          port_ = *port;
          return;
        }
        throw std::runtime_error("cannot parse the port in the daemon's line \"" + std::string(line) + "\"");
      }
    }
    if (!running()) {
      throw std::runtime_error("agentry serve exited with code " + std::to_string(*exit_code_) +
                               " before announcing its HTTP port; " + describe_output());
    }
    if (Clock::now() >= deadline) {
      kill_group();
      (void)wait_for_exit(pid_, std::chrono::seconds(10));
      reaped_ = true;
      throw std::runtime_error("agentry serve did not print \"http api on http://127.0.0.1:<port>/api/\" within " +
                               std::to_string(options_.startup_timeout.count()) + " ms (killed it); " +
                               describe_output());
    }
    std::this_thread::sleep_for(options_.ready_poll);
  }
}

std::uint16_t DaemonProcess::port() const {
  if (port_ == 0) throw std::logic_error("DaemonProcess::port: the daemon has not been started");
  return port_;
}

std::uint16_t DaemonProcess::ws_port() const {
  if (ws_port_ == 0) throw std::logic_error("DaemonProcess::ws_port: no \"serving on ws://\" line was seen");
  return ws_port_;
}

HttpClient DaemonProcess::client() const { return HttpClient("127.0.0.1", port()); }

HttpClient DaemonProcess::compat_client() const {
  if (compat_port_ == 0)
    throw std::logic_error("DaemonProcess::compat_client: no \"agent-runner api on http://\" line was seen");
  return HttpClient("127.0.0.1", compat_port_);
}

HttpClient DaemonProcess::socket_client() const {
  if (socket_path_.empty())
    throw std::logic_error("DaemonProcess::socket_client: no \"serving on unix://\" line was seen");
  return HttpClient(socket_path_.string(), 0);
}

std::string DaemonProcess::base_url() const { return "http://127.0.0.1:" + std::to_string(port()); }

bool DaemonProcess::running() {
  if (reaped_) return false;
  if (auto code = try_reap(pid_)) {
    exit_code_ = code;
    reaped_ = true;
    return false;
  }
  return true;
}

int DaemonProcess::stop(int signal, std::chrono::milliseconds timeout) {
  if (pid_ < 0) throw std::logic_error("DaemonProcess::stop: the daemon was never started");
  if (!running()) return *exit_code_;
  if (::kill(pid_, signal) != 0) throw std::runtime_error(errno_message("kill " + std::to_string(pid_), errno));
  if (auto code = wait_for_exit(pid_, timeout)) {
    exit_code_ = code;
    reaped_ = true;
    return *code;
  }
  ::kill(pid_, SIGKILL);
  exit_code_ = wait_for_exit(pid_, std::chrono::seconds(10));
  reaped_ = true;
  throw std::runtime_error("agentry serve (pid " + std::to_string(pid_) + ") did not exit within " +
                           std::to_string(timeout.count()) + " ms of " + signal_name(signal) + "; it was SIGKILLed. stderr:\n" +
                           tail(stderr_text(), 4000));
}

void DaemonProcess::kill9() {
  if (!running()) return;
  ::kill(pid_, SIGKILL);
  exit_code_ = wait_for_exit(pid_, std::chrono::seconds(10));
  reaped_ = true;
}

std::string DaemonProcess::stdout_text() const { return read_from(stdout_path(), stdout_offset_); }

std::string DaemonProcess::stderr_text() const { return read_from(stderr_path(), stderr_offset_); }

std::string DaemonProcess::describe_output() const {
  return "stderr (" + stderr_path().string() + "):\n" + tail(stderr_text(), 4000) + "\nstdout (" +
         stdout_path().string() + "):\n" + tail(stdout_text(), 2000);
}

}  // namespace agentry::test
