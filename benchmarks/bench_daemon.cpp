#include "bench_daemon.hpp"

#include "daemon_binary.hpp"
#include "support/source_tree.hpp"

#include <cstdlib>
#include <stdexcept>

namespace agentry::bench {

std::filesystem::path bench_config_dir() {
  if (const char* dir = std::getenv("AGENTRY_BENCH_CONFIG_DIR"); dir && *dir) return dir;
  return test::source_tree() / "benchmarks/config";
}

std::optional<std::pair<std::string, std::uint16_t>> remote_daemon() {
  const char* url = std::getenv("AGENTRY_BENCH_DAEMON");
  if (url == nullptr || *url == '\0') return std::nullopt;
  std::string_view rest(url);
  const auto bad = [&] {
    return std::runtime_error("AGENTRY_BENCH_DAEMON=" + std::string(url) + ": expected http://host:port");
  };
  if (!rest.starts_with("http://")) throw bad();
  rest.remove_prefix(7);
  if (rest.ends_with('/')) rest.remove_suffix(1);
  const auto colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || rest.find('/') != std::string_view::npos) throw bad();
  const std::string digits(rest.substr(colon + 1));
  if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos) throw bad();
  const int port = std::stoi(digits);
  if (port < 1 || port > 65535) throw bad();
  std::string host(rest.substr(0, colon));
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return std::pair{host, static_cast<std::uint16_t>(port)};
}

BenchDaemon::BenchDaemon(BenchDaemonOptions options) {
  if (auto remote = remote_daemon()) {
    host_ = remote->first;
    port_ = remote->second;
    if (const char* token = std::getenv("AGENTRY_DAEMON_TOKEN")) token_ = token;
    const char* cwd = std::getenv("AGENTRY_BENCH_CWD");
    caller_cwd_ = cwd && *cwd ? cwd : "/tmp";
    return;
  }
  test::DaemonOptions daemon;
  daemon.home = options.home;
  daemon.config_dir = options.config_dir.empty() ? bench_config_dir() : options.config_dir;
  daemon.env = std::move(options.env);
  daemon.binary = daemon_binary();
  process_ = std::make_unique<test::DaemonProcess>(daemon);
  process_->start();
  host_ = "127.0.0.1";
  port_ = process_->port();
  caller_cwd_ = (options.home / "work").string();
  std::filesystem::create_directories(caller_cwd_);
}

std::optional<pid_t> BenchDaemon::pid() const {
  if (!process_) return std::nullopt;
  return process_->pid();
}

test::HttpClient BenchDaemon::client() const {
  test::HttpClient client(host_, port_);
  if (!token_.empty()) client.set_default_header("Authorization", "Bearer " + token_);
  return client;
}

double BenchDaemon::metric(const std::string& sample) const {
  const auto metrics = client().get("/metrics");
  const auto at = metrics.body.find("\n" + sample + " ");
  if (metrics.status != 200 || at == std::string::npos) throw std::runtime_error("no " + sample + " on /metrics");
  return std::atof(metrics.body.c_str() + at + sample.size() + 2);
}

}  // namespace agentry::bench
