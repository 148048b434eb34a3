#pragma once
// Several real `agentry serve` members on one PostgreSQL database (started by the tests,
// tests/support/postgres_cluster.hpp), and the reads the cluster tests make of any member.

#include "support/daemon_process.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace agentry::integration {

using Env = std::vector<std::pair<std::string, std::string>>;

/// The daemon id of the member answering.
std::string self_id(const test::DaemonProcess& daemon);
/// RunDetail.run of `run`, as `daemon` shows it.
boost::json::object run_of(const test::DaemonProcess& daemon, const std::string& run);
/// The run's audit events of `type`.
std::vector<boost::json::object> audit_of(const test::DaemonProcess& daemon, const std::string& run,
                                          const std::string& type);
/// Every durable timeline event of the run, by cursor: kind.
std::map<std::int64_t, std::string> timeline_of(const test::DaemonProcess& daemon, const std::string& run);
/// A member named `name` serving `store`, its home under `dir`.
std::unique_ptr<test::DaemonProcess> member(const test::TempDir& dir, const std::filesystem::path& config,
                                            const std::string& store, const std::string& name, Env env = {});
/// Starts a run of `agent` in `cwd` through `daemon`; its id (empty, and a failure, when refused).
std::string start_run(const test::DaemonProcess& daemon, const std::string& agent, const std::string& cwd,
                      boost::json::object extra = {});
/// Polls the run on `daemon` until its status is no longer `from` (or `timeout`); its status.
std::string wait_while_status(const test::DaemonProcess& daemon, const std::string& run, const std::string& from,
                              std::chrono::milliseconds timeout = std::chrono::seconds(10));
inline std::string wait_until_not_running(const test::DaemonProcess& daemon, const std::string& run,
                                          std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  return wait_while_status(daemon, run, "running", timeout);
}

/// Members alpha, beta (and gamma with three) on a fresh database, sharing one config
/// whose one agent `agent` runs the mock `steps` (a YAML flow list); more with add().
struct Cluster {
  test::TempDir dir;
  std::filesystem::path config = dir.make_dir("config");
  std::string store;
  std::vector<std::unique_ptr<test::DaemonProcess>> members;

  Cluster(int count, const std::string& agent, const std::string& steps, const Env& env = {});
  /// Another member, with its own settings.
  test::DaemonProcess& add(const std::string& name, Env env = {});
  test::DaemonProcess& operator[](std::size_t i) { return *members[i]; }
};

}  // namespace agentry::integration
