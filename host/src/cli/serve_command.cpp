#include "cli/serve_command.hpp"

#include "api/access_policy.hpp"
#include "api/api_context.hpp"
#include "api/browser_guard.hpp"
#include "api/compat/compat_operations.hpp"
#include "api/compat/compat_routes.hpp"
#include "api/compat/compat_streams.hpp"
#include "api/compat/compat_timelines.hpp"
#include "api/compat/compat_web.hpp"
#include "api/holder_relay.hpp"
#include "api/http_server.hpp"
#include "api/local_socket.hpp"
#include "api/operations.hpp"
#include "api/router.hpp"
#include "api/web_base_path.hpp"
#include "cli/daemon_allocator.hpp"
#include "cli/daemon_lock.hpp"
#include "cli/daemon_socket.hpp"
#include "cli/exit_codes.hpp"
#include "cli/listen_url.hpp"
#include "cli/local_stack.hpp"
#include "cli/paths.hpp"
#include "core/clock.hpp"
#include "core/ids.hpp"
#include "core/log.hpp"
#include "core/process_identity.hpp"
#include "engine/controllers.hpp"
#include "engine/leases/run_leases.hpp"
#include "notify/notifier.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <thread>

#include <unistd.h>

namespace agentry::cli {
namespace {

// While this process holds the daemon lock of a home with its own SQLite store, every
// other "daemon-*" controller in it is known to be gone (engine/controllers.hpp). A
// shared store has other daemons serving too: their pids tell on this machine only.
struct DaemonLockKnowledge {
  explicit DaemonLockKnowledge(bool sole_daemon) { engine::set_holds_daemon_lock(sole_daemon); }
  ~DaemonLockKnowledge() { engine::set_holds_daemon_lock(false); }
  DaemonLockKnowledge(const DaemonLockKnowledge&) = delete;
  DaemonLockKnowledge& operator=(const DaemonLockKnowledge&) = delete;
};

// On a shared store, the runs of members on other machines are theirs: liveness checks
// ask the membership, for as long as this object (declared after the engine) lives.
struct MemberKnowledge {
  explicit MemberKnowledge(engine::MembershipService& members) {
    engine::set_member_hosts([&members](const std::string& controller_id) { return members.host_of(controller_id); });
  }
  ~MemberKnowledge() { engine::set_member_hosts(nullptr); }
  MemberKnowledge(const MemberKnowledge&) = delete;
  MemberKnowledge& operator=(const MemberKnowledge&) = delete;
};

/// What `serve` works out from its settings and checks before it takes the daemon lock,
/// so that a bad value stops it before it has touched anything.
struct ServeConfig {
  ListenUrl url;
  api::AccessPolicy access;
  api::BrowserGuard guard;
  std::string web_base_path;
  Paths paths;
  std::optional<DaemonSocket> socket;  // none: --socket none
  /// The second listener, speaking agent-runner's wire (AGENTRY_COMPAT_LISTEN).
  struct Compat {
    ListenUrl url;
    api::BrowserGuard guard;
    std::string web_base_path;
  };
  std::optional<Compat> compat;
};

core::Result<std::optional<ServeConfig::Compat>> read_compat_config(const ListenUrl& own, const core::Settings& settings) {
  if (settings.compat_listen.empty()) return std::optional<ServeConfig::Compat>();
  auto url = parse_listen_url(settings.compat_listen);
  if (!url) return core::fail(url.error().code, "AGENTRY_COMPAT_LISTEN: " + url.error().message);
  // Both default to 4773 (agent-runner's clients dial it): one of them must move.
  if (url->port != 0 && url->port == own.port)
    return core::fail(core::ErrorCode::invalid_request,
                      "AGENTRY_COMPAT_LISTEN (" + settings.compat_listen + ") uses the port agentry itself listens on (" +
                          std::to_string(own.port) +
                          "); move agentry with --listen (e.g. ws://127.0.0.1:4780/) and keep 4773 for agent-runner's "
                          "clients");
  auto base = api::compat::normalize_compat_base_path(settings.compat_web_base_path);
  if (!base) return base.failure();
  api::BrowserGuard guard(url->host, settings.allowed_hosts, settings.allowed_origins);
  guard.set_upload_header("x-agent-runner-attachment-name");
  return std::optional<ServeConfig::Compat>(ServeConfig::Compat{std::move(*url), std::move(guard), std::move(*base)});
}

core::Result<ServeConfig> read_serve_config(const ServeOptions& options, const core::Settings& settings) {
  auto url = parse_listen_url(options.listen);
  if (!url) return url.failure();
  auto access = api::AccessPolicy::from_settings(settings);
  if (!access) return access.failure();
  // Read once, into the settings; no agent, launcher or app-server this daemon starts may
  // inherit it. With auth on, an agent gets a token for its own run instead
  // (engine/live/run_tokens.hpp). AGENTRY_STORE stays: a hook or script that runs
  // `agentry` embedded must reach the same store as its daemon, not a SQLite file of the
  // home (docs/scale-out.md: keep the database password in ~/.pgpass, not the URI).
  ::unsetenv("AGENTRY_DAEMON_TOKEN");
  api::BrowserGuard guard(url->host, settings.allowed_hosts, settings.allowed_origins);
  auto web_base_path = api::normalize_web_base_path(settings.web_base_path);
  if (!web_base_path) return web_base_path.failure();
  auto paths = resolve_paths(settings);
  if (!paths) return paths.failure();
  auto socket = daemon_socket(settings, *paths);
  if (!socket) return socket.failure();
  auto compat = read_compat_config(*url, settings);
  if (!compat) return compat.failure();
  return ServeConfig{std::move(*url),   std::move(*access), std::move(guard),   std::move(*web_base_path),
                     std::move(*paths), std::move(*socket), std::move(*compat)};
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

/// This daemon as the other members of its store see it (engine/membership/).
core::DaemonMember member_of(const api::DaemonInfo& daemon, const core::Settings& settings,
                              const std::string& http_url) {
  core::DaemonMember self;
  self.id = daemon.daemon_instance_id;
  self.host = host_name();
  self.name = settings.daemon_name.empty() ? self.host : settings.daemon_name;
  self.pid = daemon.pid;
  self.advertise_url = settings.advertise_url.empty() ? http_url : settings.advertise_url;
  self.labels = settings.labels;
  self.capacity = settings.max_live_runs;
  self.workspace_roots = settings.workspace_roots;
  self.version = daemon.version;
  self.started_at = daemon.started_at;
  return self;
}

api::ServerLimits server_limits(const core::Settings& settings) {
  api::ServerLimits limits;
  limits.read_timeout = settings.http_read_timeout;
  limits.idle_timeout = settings.http_idle_timeout;
  limits.max_connections = static_cast<std::size_t>(settings.http_max_connections);
  limits.write_timeout = settings.http_write_timeout;
  limits.sse_heartbeat = settings.sse_heartbeat;
  return limits;
}

/// What a previous daemon (or an embedded CLI) left unfinished, put right before anyone
/// is served (the server accepts from run() on). False when reconciliation failed
/// (reported on standard error): the daemon must not start then.
bool recover_after_restart(engine::Engine& engine) {
  // Runs left "running" by a dead controller must not look alive.
  if (auto finalized = engine.reconcile_after_restart(); !finalized) {
    std::cerr << "agentry serve: startup reconciliation failed: " << finalized.error().message << "\n";
    return false;
  }
  // Containers of runs a killed daemon left behind: removed once no running run uses them.
  engine.sweep_containers_after_restart();
  if (auto delivered = engine.deliver_queued_after_restart(); !delivered)
    core::log_error("delivering queued messages after restart failed", {{"error", delivered.error().message}});
  // Children whose session ended while no daemon delivered their parent notification
  // tell their parents now; from here on each one does as its session ends.
  if (auto notified = engine.parent_completion().start(); !notified)
    core::log_error("delivering parent-completion notifications after restart failed",
                    {{"error", notified.error().message}});
  // Ready runs start once what they wait on has succeeded: from now on, and at once for
  // those whose dependencies were met while no daemon was serving.
  engine.dependencies().enable_auto_start();
  return true;
}

}  // namespace

int run_serve(const ServeOptions& options, const core::Settings& settings) {
  limit_daemon_heap_arenas();
  core::set_log_level(settings.log_level);
  auto config = read_serve_config(options, settings);
  if (!config) {
    std::cerr << "agentry serve: " << config.error().message << "\n";
    return exit_code::config_error;
  }
  const ListenUrl& url = config->url;
  const Paths& paths = config->paths;
  api::AccessPolicy& access = config->access;
  // Held until this function returns, after the runs are stopped or detached.
  auto lock = DaemonLock::acquire(paths.home, settings.daemon_lock_wait, [&](long holder) {
    std::cerr << "agentry serve: waiting for the daemon that serves " << paths.home.string() << " (pid " << holder
              << ") to stop ..." << std::endl;
  });
  if (!lock) {
    std::cerr << "agentry serve: " << lock.error().message << "\n";
    return lock.error().code == core::ErrorCode::conflict ? exit_code::config_error : exit_code::runtime_error;
  }
  DaemonLockKnowledge sole_daemon(settings.store.empty());
  const long pid = static_cast<long>(::getpid());
  auto stack = LocalStack::open(paths, settings,
                                api::DaemonInfo{core::new_daemon_instance_id(pid, core::process_start_time(pid)), pid,
                                                "", AGENTRY_VERSION, core::now_iso8601()},
                                access.enabled());
  if (!stack) {
    // The store named by the settings cannot be used (a wrong URI, a refused login, an
    // unreachable server, a schema newer than this build): a refusal of the configuration.
    std::cerr << "agentry serve: " << stack.error().message << "\n";
    return exit_code::config_error;
  }
  auto& engine = (*stack)->engine();
  auto& context = (*stack)->context();
  context.web_base_path = config->web_base_path;
  const auto& operations = (*stack)->operations();
  api::Router router;
  api::add_all_routes(router, context, operations);
  api::ServerLimits limits = server_limits(settings);
  // Handler threads spend most of their time waiting for a commit (and its fsync), not on
  // the CPU; their number caps how many writes can share one group commit. With 4, eight
  // clients creating runs got at most 4 creations per fsync.
  api::ServerThreads threads;
  threads.workers = 16;
  api::HttpServer server(router, limits, threads);
  server.export_connection_metrics("main");
  server.enable_websocket(operations, engine);
  access.set_run_token_lookup([&engine](std::string_view token) { return engine.run_of_token(token); });
  server.set_access_policy(access);
  server.set_browser_guard(config->guard);
  server.set_web_base_path(context.web_base_path);
  server.set_unsent_memory((*stack)->unsent_memory());
  // The embedded store's reads never wait on its writer: a run's detail is read where it
  // was asked for (api/quick_reads.hpp). PostgreSQL's cross a network.
  server.answer_quick_reads_inline(!(*stack)->database().shared());
  // Attachment uploads go to files next to where they are kept, never into memory.
  if (const auto* blobs = engine.attachments().blobs())
    server.set_upload_spool(api::UploadSpool{blobs->spool_dir(), api::spooled_body_limit});
  engine.attachments().sweep();
  auto port = server.listen(url.host, url.port);
  if (!port) {
    std::cerr << "agentry serve: " << port.error().message << "\n";
    return exit_code::runtime_error;
  }
  // The Unix socket serves exactly what the port does, for agents in sandboxes without
  // a network (an environment mounts its directory). After the daemon lock, so that a
  // second daemon of this home waits for the first instead of finding its socket live.
  if (config->socket) {
    auto listening = prepare_socket_directory(*config->socket);
    if (listening) listening = server.listen_local(config->socket->path);
    if (!listening) {
      std::cerr << "agentry serve: " << listening.error().message << "\n";
      return exit_code::runtime_error;
    }
    context.daemon.socket_url = api::unix_url(config->socket->path);
  }
  context.daemon.listen_url = url.ws_url(*port);
  // agent-runner's clients, on their own port: its routes on our operations (api/compat/).
  api::compat::CompatTimelines compat_timelines(engine);
  std::optional<api::compat::CompatContext> compat_context;
  api::Operations compat_operations;
  api::Router compat_router;
  std::optional<api::HttpServer> compat_server;
  std::string compat_http_url;
  if (config->compat) {
    compat_context.emplace(api::compat::CompatContext{
        context, operations, compat_timelines,
        settings.compat_web_dir.empty() ? std::filesystem::path() : std::filesystem::absolute(settings.compat_web_dir),
        config->compat->web_base_path,
        settings.compat_default_cwd.empty() ? std::filesystem::current_path()
                                            : std::filesystem::absolute(settings.compat_default_cwd),
        paths.home / "compat" / "runs", /*listen_url=*/""});
    compat_operations = api::compat::make_compat_operations(*compat_context);
    api::compat::add_compat_routes(compat_router, *compat_context, compat_operations);
    api::ServerThreads compat_threads;
    compat_threads.io = 1;
    compat_threads.workers = 4;
    compat_threads.slow_workers = 2;
    compat_threads.blocking_workers = 4;
    compat_server.emplace(compat_router, limits, compat_threads);
    compat_server->export_connection_metrics("compat");
    compat_server->set_access_policy(access);
    compat_server->set_browser_guard(config->compat->guard);
    compat_server->set_web_base_path(config->compat->web_base_path);
    compat_server->set_unsent_memory((*stack)->unsent_memory());
    compat_server->set_error_format(api::compat::compat_error_answer);
    if (const auto* blobs = engine.attachments().blobs())
      compat_server->set_upload_spool(api::UploadSpool{blobs->spool_dir(), api::spooled_body_limit});
    compat_server->enable_websocket(operations, engine);
    compat_server->set_websocket_dialect(api::compat::compat_websocket_dialect(*compat_context, compat_operations));
    auto compat_port = compat_server->listen(config->compat->url.host, config->compat->url.port);
    if (!compat_port) {
      std::cerr << "agentry serve: AGENTRY_COMPAT_LISTEN: " << compat_port.error().message << "\n";
      return exit_code::runtime_error;
    }
    compat_http_url = config->compat->url.http_url(*compat_port);
    compat_context->listen_url = config->compat->url.ws_url(*compat_port);
  }
  // Agents call back through AGENTRY_CONNECT; runs taken over and deliveries left over
  // from the last run of the daemon start only now, so their agents get it too.
  engine.set_connect_url(context.daemon.listen_url);
  engine.set_daemon_socket(config->socket ? config->socket->path.string() : std::string());
  // Joined before recovery, so that it knows which runs other members drive.
  if (auto joined = engine.membership().start(member_of(context.daemon, settings, url.http_url(*port))); !joined) {
    std::cerr << "agentry serve: cannot register with the store's members: " << joined.error().message << "\n";
    return exit_code::runtime_error;
  }
  std::optional<MemberKnowledge> members;
  if (!settings.store.empty()) members.emplace(engine.membership());
  // On a shared store, a run another member drives is followed here through it.
  std::optional<api::HolderRelay> relay;
  if (!settings.store.empty()) {
    relay.emplace(engine, settings.daemon_token);
    engine.set_timeline_relay([&relay](const std::string& run_id) { return relay->follow(run_id); });
  }
  if (!recover_after_restart(engine)) return exit_code::runtime_error;
  // Runs left alone above because their controller (an embedded CLI) was alive are
  // looked at again now and then: once that process is gone, they are reconciled too.
  // On a shared store, the same sweep takes over the runs of members whose leases ran out,
  // so it looks as often as the lease time asks (engine/leases/run_leases.hpp).
  auto sweep_every = settings.reconcile_interval;
  if (!settings.store.empty())
    sweep_every = std::min(sweep_every, engine::LeaseTimes::from_ttl(settings.lease_ttl).sweep_every);
  (*stack)->start_owner_sweep(sweep_every);
  // Changes an embedded CLI commits (a run it drove ended, a schedule it set) are
  // noticed within a second: streams wake, dependents start, schedules are armed.
  (*stack)->start_foreign_change_watch(settings.foreign_change_interval);
  // Completion notifications: only the serving daemon delivers them, those queued while
  // no daemon ran (by embedded CLIs, or left over from the last daemon) first.
  notify::Notifier notifier((*stack)->database(), (*stack)->bus(), notify::NotifierOptions::from_settings(settings));
  notifier.start();
  // Schedules after reconciliation (the reference's order): missed occurrences are
  // recorded, not started late; the rest are armed on one timer.
  if (auto armed = engine.schedules().start(); !armed)
    core::log_error("arming schedules failed", {{"error", armed.error().message}});
  else
    core::log_info("schedules armed", {{"count", std::to_string(*armed)}});
  core::log_info("daemon started", {{"daemonInstanceId", context.daemon.daemon_instance_id},
                                    {"auth", access.enabled() ? "bearer token" : "off"},
                                    {"listen", context.daemon.listen_url},
                                    {"socket", context.daemon.socket_url.empty() ? "none" : context.daemon.socket_url},
                                    {"home", paths.home.string()},
                                    {"config", paths.config_dir.string()}});
  std::cout << "serving on " << url.ws_url(*port) << "\n";
  if (!context.daemon.socket_url.empty()) std::cout << "serving on " << context.daemon.socket_url << "\n";
  if (compat_server) std::cout << "agent-runner api on " << compat_http_url << "/api/\n";
  // Last: whoever waits for the daemon to be ready (tests, scripts) waits for this line.
  std::cout << "http api on " << url.http_url(*port) << "/api/" << std::endl;

  // Both servers stop on SIGINT/SIGTERM; the compat one also when ours stops first.
  std::thread compat_thread;
  if (compat_server) compat_thread = std::thread([&compat_server] { compat_server->run(); });
  int signal = server.run();
  if (compat_server) {
    compat_server->stop();
    compat_thread.join();
  }
  engine.set_timeline_relay(nullptr);
  relay.reset();
  engine.schedules().stop();
  (*stack)->stop_owner_sweep();
  // Runs this daemon drives locally cannot outlive it: interrupt them (they end as
  // aborted) while their results can still be recorded. Runs whose agent works on
  // without us (Codex over ws/uds) are detached instead, and taken over at the next start.
  engine.stop_live_runs("agentry is shutting down", /*leave_remote_agents=*/true);
  engine.membership().stop();
  // After the runs: what their ends queued is delivered by the next daemon.
  notifier.stop();
  core::log_info("daemon stopped");
  return signal == SIGINT ? exit_code::cancelled : exit_code::success;
}

}  // namespace agentry::cli
