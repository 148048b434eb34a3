#include "environments/exec_relay.hpp"


#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string_view>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace agentry::environments {
namespace {

constexpr std::array forwarded_signals{SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

bool read_file(const std::string& path, std::string& out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buffer[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
    if (out.size() > 4 * 1024 * 1024) break;
  }
  ::close(fd);
  return true;
}

void signal_all(const std::vector<pid_t>& pids, int sig) {
  for (pid_t pid : pids) ::kill(pid, sig);
}

/// The watchdog: once the relay is gone (its pipe's write end closed), the marked
/// processes get SIGTERM, then SIGKILL two seconds later if they are still there.
[[noreturn]] void watch(int pipe_read, const std::string& marker) {
  ::setsid();
  // Holds nothing of the backend's: a pipe it reads to EOF must not wait for us.
  const int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
  }
  ::dup2(pipe_read, 3);
  ::close_range(4, ~0U, 0);
  char byte;
  for (;;) {
    const ssize_t n = ::read(3, &byte, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  auto left = marked_processes(marker);
  signal_all(left, SIGTERM);
  for (int i = 0; i < 20 && !left.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    left = marked_processes(marker);
  }
  signal_all(left, SIGKILL);
  ::_exit(0);
}

std::vector<char*> pointers(std::vector<std::string>& items) {
  std::vector<char*> out;
  for (auto& s : items) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

bool host_only_variable(const std::string& name) {
  static constexpr std::array<std::string_view, 19> exact{
      "PATH",     "HOME",         "USER",     "LOGNAME",         "SHELL",      "PWD",
      "OLDPWD",   "SHLVL",        "HOSTNAME", "TMPDIR",          "TMP",        "TEMP",
      "MAIL",     "_",            "DISPLAY",  "WAYLAND_DISPLAY", "SSH_AUTH_SOCK", "SSH_AGENT_PID",
      "DBUS_SESSION_BUS_ADDRESS"};
  for (auto e : exact)
    if (name == e) return true;
  if (name.rfind("LD_", 0) == 0 || name.rfind("XDG_", 0) == 0) return true;
  // The daemon's own settings (its home, its store's URI with a password, its token)
  // stay out; the run's variables go in.
  static constexpr std::array<std::string_view, 8> run_variables{
      "AGENTRY_RUN_ID",    "AGENTRY_RUN_GROUP_ID", "AGENTRY_PARENT_RUN_ID", "AGENTRY_CONNECT",
      "AGENTRY_DAEMON_TOKEN", "AGENTRY_CALL_DEPTH", "AGENTRY_PROMPT",        "AGENTRY_RESUME_TOKEN"};
  if (name.rfind("AGENTRY_", 0) == 0) {
    for (auto v : run_variables)
      if (name == v) return false;
    return true;
  }
  return false;
}

std::vector<pid_t> marked_processes(const std::string& marker) {
  std::vector<pid_t> out;
  const std::string needle = std::string(exec_marker_variable) + "=" + marker;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return out;
  const pid_t self = ::getpid();
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid <= 0 || pid == self) continue;
    std::string environment;
    if (!read_file("/proc/" + std::string(entry->d_name) + "/environ", environment)) continue;
    std::size_t at = 0;
    while ((at = environment.find(needle, at)) != std::string::npos) {
      const bool starts = at == 0 || environment[at - 1] == '\0';
      const std::size_t after = at + needle.size();
      if (starts && (after == environment.size() || environment[after] == '\0')) {
        out.push_back(static_cast<pid_t>(pid));
        break;
      }
      at = after;
    }
  }
  ::closedir(proc);
  return out;
}

std::string parse_exec_relay_args(const std::vector<std::string>& args, ExecRelayArgs& out) {
  long engine_argc = -1;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (i + 1 >= args.size()) return "option " + a + " needs a value";
    const std::string& value = args[++i];
    if (a == "--marker") out.marker = value;
    else if (a == "--container") out.container = value;
    else if (a == "--set") {
      if (value.find('=') == std::string::npos || value.front() == '=') return "--set needs NAME=VALUE";
      out.set_env.push_back(value);
    } else if (a == "--engine-argc") {
      char* end = nullptr;
      engine_argc = std::strtol(value.c_str(), &end, 10);
      if (*end != '\0' || engine_argc < 1) return "--engine-argc needs a positive count";
    } else {
      return "unknown option " + a;
    }
  }
  if (out.marker.empty() || out.container.empty() || engine_argc < 1)
    return "needs --marker, --container and --engine-argc";
  if (args.size() - i < static_cast<std::size_t>(engine_argc) + 1)
    return "needs the engine's command and then the agent's";
  out.engine_command.assign(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + engine_argc);
  out.agent_command.assign(args.begin() + static_cast<long>(i) + engine_argc, args.end());
  return {};
}

int run_exec_relay(const ExecRelayArgs& args) {
  // The child's environment: ours, then the settings for inside.
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  for (const auto& set : args.set_env) {
    const std::string name = set.substr(0, set.find('=') + 1);
    std::erase_if(env, [&](const std::string& e) { return e.rfind(name, 0) == 0; });
    env.push_back(set);
  }
  std::vector<std::string> argv = args.engine_command;
  for (const auto& e : env) {
    const std::string name = e.substr(0, e.find('='));
    if (name.empty() || host_only_variable(name)) continue;
    argv.emplace_back("-e");
    argv.push_back(name);
  }
  argv.push_back(args.container);
  argv.insert(argv.end(), args.agent_command.begin(), args.agent_command.end());

  sigset_t handled;
  sigemptyset(&handled);
  for (int sig : forwarded_signals) sigaddset(&handled, sig);
  sigaddset(&handled, SIGCHLD);
  sigset_t previous;
  ::sigprocmask(SIG_BLOCK, &handled, &previous);

  int watch_pipe[2];
  if (::pipe2(watch_pipe, O_CLOEXEC) != 0) {
    std::perror("agentry container-exec: pipe");
    return 125;
  }
  const pid_t watchdog = ::fork();
  if (watchdog == 0) watch(watch_pipe[0], args.marker);
  ::close(watch_pipe[0]);

  const pid_t child = ::fork();
  if (child < 0) {
    std::perror("agentry container-exec: fork");
    return 125;
  }
  if (child == 0) {
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    auto argv_p = pointers(argv);
    auto env_p = pointers(env);
    ::execvpe(argv_p[0], argv_p.data(), env_p.data());
    std::fprintf(stderr, "agentry container-exec: cannot start %s: %s\n", argv_p[0], std::strerror(errno));
    ::_exit(127);
  }

  int status = 0;
  for (;;) {
    siginfo_t info{};
    if (::sigwaitinfo(&handled, &info) < 0) continue;
    if (info.si_signo == SIGCHLD) {
      ::waitpid(watchdog, nullptr, WNOHANG);  // only if it died early
      if (::waitpid(child, &status, WNOHANG) == child) break;
      continue;
    }
    // A signal for the agent: to the processes inside; before any exists (the engine
    // is still starting it), to the engine's client, which then stops it.
    auto inside = marked_processes(args.marker);
    if (inside.empty()) ::kill(child, info.si_signo);
    else signal_all(inside, info.si_signo);
  }

  int sig = 0;
  if (WIFSIGNALED(status)) sig = WTERMSIG(status);
  else if (WIFEXITED(status) && WEXITSTATUS(status) > 128)
    for (int s : {SIGINT, SIGTERM, SIGKILL, SIGHUP, SIGQUIT})
      if (WEXITSTATUS(status) == 128 + s) sig = s;
  if (sig != 0) {
    ::signal(sig, SIG_DFL);
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
    ::kill(::getpid(), sig);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
}

}  // namespace agentry::environments
