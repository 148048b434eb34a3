#include "cli/doctor_checks.hpp"

#include "cli/listen_url.hpp"
#include "cli/open_store.hpp"
#include "cli/programs.hpp"
#include "process/runner.hpp"
#include "workspace/libgit2_version.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <set>
#include <system_error>

namespace agentry::cli {
namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t low_disk_bytes = 1ull << 30;  // 1 GiB

DoctorCheck ok(std::string name, std::string detail) {
  return {std::move(name), CheckStatus::ok, std::move(detail), ""};
}
DoctorCheck warn(std::string name, std::string detail, std::string fix) {
  return {std::move(name), CheckStatus::warn, std::move(detail), std::move(fix)};
}
DoctorCheck fail(std::string name, std::string detail, std::string fix) {
  return {std::move(name), CheckStatus::fail, std::move(detail), std::move(fix)};
}

/// The deepest existing directory at or above `path` (itself when it exists); empty
/// when what exists there is not a directory.
fs::path existing_ancestor(const fs::path& path, std::string& problem) {
  std::error_code ec;
  for (fs::path p = path; !p.empty(); p = p.parent_path()) {
    if (!fs::exists(p, ec)) {
      if (p == p.parent_path()) break;
      continue;
    }
    if (!fs::is_directory(p, ec)) {
      problem = p.string() + " is not a directory";
      return {};
    }
    return p;
  }
  problem = "no part of " + path.string() + " exists";
  return {};
}

/// Whether a file can be made in `dir`: made and removed again (as root, permission bits
/// say nothing).
std::string probe_writable(const fs::path& dir) {
  const fs::path probe = dir / (".agentry-doctor-" + std::to_string(::getpid()));
  std::ofstream file(probe);
  if (!file) return "cannot create a file in " + dir.string();
  file.close();
  std::error_code ec;
  fs::remove(probe, ec);
  return "";
}

void check_sqlite_writable(const DoctorInput& in, DoctorChecks& out) {
  const fs::path& home = in.paths.home;
  std::string problem;
  const fs::path dir = existing_ancestor(home, problem);
  if (problem.empty()) problem = probe_writable(dir);
  std::error_code ec;
  if (problem.empty() && fs::exists(in.paths.database(), ec) && ::access(in.paths.database().c_str(), W_OK) != 0)
    problem = in.paths.database().string() + " is read-only";
  if (!problem.empty()) {
    out.push_back(fail("store: writable", problem + ": runs cannot be recorded in " + home.string(),
                       "make " + home.string() + " writable by this user, or set AGENTRY_HOME to a directory that is"));
    return;
  }
  out.push_back(ok("store: writable", home.string() + (dir == home ? "" : " (made at first use)")));
}

}  // namespace

std::string_view to_string(CheckStatus status) {
  switch (status) {
    case CheckStatus::ok:
      return "ok";
    case CheckStatus::warn:
      return "warn";
    case CheckStatus::fail:
      return "fail";
  }
  return "fail";
}

ProgramVersion program_version(const std::string& program) {
  process::RunRequest request;
  request.argv = {program, "--version"};
  process::RunLimits limits;
  limits.timeout = std::chrono::seconds(5);
  auto r = process::run_program(request, limits);
  if (r.exit_code == 0) {
    auto line = process::first_line(r.stdout_text.empty() ? r.stderr_text : r.stdout_text, 120);
    return {true, line.empty() ? "(no version printed)" : line};
  }
  if (r.timed_out) return {false, program + " --version did not answer within 5 s"};
  return {false,
          program + " --version failed: " + (r.stderr_text.empty() ? r.error : process::first_line(r.stderr_text))};
}

void check_store(const DoctorInput& in, DoctorChecks& out) {
  const bool sqlite = in.settings.store.empty();
  if (sqlite) check_sqlite_writable(in, out);
  auto found = inspect_store(in.paths, in.settings);
  if (!found) {
    out.push_back(fail("store", found.error().message,
                       sqlite ? "check the file's permissions, or move it aside and let serve make a new one"
                              : "check AGENTRY_STORE (the URI, the server, the login: ~/.pgpass) and that the "
                                "server is reachable from here"));
    return;
  }
  if (!found->exists) {
    out.push_back(ok("store", "sqlite " + found->store + " does not exist yet: serve or the first command makes it"));
    return;
  }
  out.push_back(ok("store", found->engine + " " + found->store));
  const std::string versions =
      "schema version " + std::to_string(found->version) + ", this agentry's is " + std::to_string(found->latest);
  if (found->version > found->latest)
    out.push_back(fail("store: migrations", versions + ": the store was written by a newer agentry",
                       "upgrade agentry, or set AGENTRY_HOME / AGENTRY_STORE to another store"));
  else if (found->version < found->latest)
    out.push_back(warn("store: migrations", versions + ": migrations are pending",
                       "run `agentry store migrate` (a daemon's start applies them too)"));
  else
    out.push_back(ok("store: migrations", versions + " (current)"));
  if (!sqlite) return;  // PostgreSQL checks its own pages
  if (found->integrity == "ok")
    out.push_back(ok("store: integrity", "PRAGMA integrity_check: ok"));
  else
    out.push_back(
        fail("store: integrity", "PRAGMA integrity_check: " + found->integrity,
             "stop the daemon, copy " + found->store + " aside, and recover it with `sqlite3 " + found->store +
                 " .recover | sqlite3 recovered.db`; then point AGENTRY_HOME at a directory holding it as agentry.db"));
}

void check_git(const DoctorInput& in, DoctorChecks& out) {
  if (auto git = find_program("git", in.env.get("PATH")); !git) {
    out.push_back(
        warn("git", "git is not on PATH: worktree hooks and agents that commit cannot run", "apt-get install git"));
  } else if (auto v = program_version(git->string()); v.ok) {
    out.push_back(ok("git", git->string() + ": " + v.text));
  } else {
    out.push_back(warn("git", v.text, "reinstall git (apt-get install --reinstall git)"));
  }
  out.push_back(ok("libgit2", "libgit2 " + workspace::libgit2_version() + " (diffs and file views)"));
}

void check_dashboard(const DoctorInput& in, DoctorChecks& out) {
  const fs::path index = in.paths.web_dir / "index.html";
  std::error_code ec;
  if (fs::is_regular_file(index, ec)) {
    std::ifstream file(index);
    const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    // The build tree's <bin>/../share/agentry/web is a copy of web/, whose index.html
    // loads TypeScript sources a browser cannot run: only web/dist is the dashboard.
    if (text.find("src/main.tsx") != std::string::npos)
      out.push_back(
          fail("dashboard", index.string() + " is the dashboard's source, not its build: browsers cannot run it",
               "build it (`make web` or `cd web && npm ci && npm run build`) and set AGENTRY_WEB_DIR to web/dist"));
    else
      out.push_back(ok("dashboard", index.string()));
    return;
  }
  out.push_back(
      fail("dashboard", "no " + index.string() + ": the daemon serves a page saying the dashboard is not built",
           "build it (`make web` or `cd web && npm ci && npm run build`) and set AGENTRY_WEB_DIR to web/dist; "
           "a package installs it in /usr/share/agentry/web"));
}

void check_auth(const DoctorInput& in, DoctorChecks& out) {
  const auto& s = in.settings;
  if (s.auth_enabled && s.daemon_token.empty()) {
    out.push_back(fail("auth",
                       "AGENTRY_DAEMON_AUTH_ENABLED is on but AGENTRY_DAEMON_TOKEN is empty: serve refuses to start",
                       "set AGENTRY_DAEMON_TOKEN (e.g. to `openssl rand -hex 32`), or turn auth off"));
    return;
  }
  auto url = parse_listen_url(s.listen);
  if (!url) {
    out.push_back(
        fail("auth", "AGENTRY_LISTEN: " + url.error().message, "set AGENTRY_LISTEN to e.g. ws://127.0.0.1:4773/"));
    return;
  }
  const bool loopback =
      url->host == "127.0.0.1" || url->host == "::1" || url->host == "localhost" || url->host.starts_with("127.");
  if (!loopback && !s.auth_enabled) {
    out.push_back(warn(
        "auth", "listening on " + url->host + " without auth: whoever reaches that address can run agents as you",
        "set AGENTRY_DAEMON_AUTH_ENABLED=true and AGENTRY_DAEMON_TOKEN, or listen on 127.0.0.1 (docs/security.md)"));
    return;
  }
  out.push_back(
      ok("auth", std::string(s.auth_enabled ? "bearer token required" : "off") + ", listening on " + url->host));
}

void check_disk(const DoctorInput& in, DoctorChecks& out) {
  std::set<unsigned long> seen;  // one line per filesystem
  for (const auto& [what, path] : {std::pair{"store", in.paths.home}, std::pair{"config", in.paths.config_dir}}) {
    std::string problem;
    const fs::path dir = existing_ancestor(path, problem);
    struct statvfs fsinfo {};
    if (dir.empty() || ::statvfs(dir.c_str(), &fsinfo) != 0) continue;  // the store check says why
    if (!seen.insert(fsinfo.f_fsid).second) continue;
    const std::uintmax_t free_bytes = static_cast<std::uintmax_t>(fsinfo.f_bavail) * fsinfo.f_frsize;
    const std::string detail = std::to_string(free_bytes >> 20) + " MiB free on the filesystem of " + path.string();
    const std::string name = std::string("disk: ") + what;
    if (free_bytes < low_disk_bytes)
      out.push_back(warn(name, detail + " (under 1 GiB)",
                         "free some space there: runs' timelines, attachments and worktrees need it"));
    else
      out.push_back(ok(name, detail));
  }
}

}  // namespace agentry::cli
