// `service install | uninstall | status`: agentry as a systemd user service
// (cli/service_unit.hpp says what the unit holds). Where systemctl is missing or the
// user's systemd manager cannot be reached (a container, WSL without systemd), install
// still writes the unit and its environment file, then prints the unit and the commands
// that enable it, and exits 0: the files are the install, enabling is the user's step.

#include "cli/commands/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/listen_url.hpp"
#include "cli/paths.hpp"
#include "cli/programs.hpp"
#include "cli/service_unit.hpp"
#include "process/runner.hpp"

#include <boost/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

namespace agentry::cli {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

const std::string enable_commands = std::string("  systemctl --user daemon-reload\n  systemctl --user enable --now ") +
                                    service_unit_name +
                                    "\n  loginctl enable-linger \"$USER\"   # to start at boot, before you log in\n";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

core::Result<void> write_text(const fs::path& path, const std::string& text, mode_t mode) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec)
    return core::fail(core::ErrorCode::internal, "cannot create " + path.parent_path().string() + ": " + ec.message());
  // Created with its final mode, so a secret is never readable by others, not even briefly.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0)
    return core::fail(core::ErrorCode::internal, "cannot write " + path.string() + ": " + std::strerror(errno));
  const bool written =
      ::fchmod(fd, mode) == 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int saved = errno;
  ::close(fd);
  if (!written)
    return core::fail(core::ErrorCode::internal, "cannot write " + path.string() + ": " + std::strerror(saved));
  return core::ok();
}

struct Systemctl {
  std::optional<fs::path> program;
  /// `systemctl --user <args>`; its result (program missing: not started).
  process::RunResult run(std::vector<std::string> args) const {
    process::RunRequest request;
    request.argv = {program->string(), "--user"};
    request.argv.insert(request.argv.end(), args.begin(), args.end());
    process::RunLimits limits;
    limits.timeout = std::chrono::seconds(60);  // enable --now waits for the start
    return process::run_program(request, limits);
  }
};

Systemctl find_systemctl(const CommandContext& ctx) {
  return Systemctl{find_program("systemctl", ctx.env().get("PATH"))};
}

std::string why(const process::RunResult& r) {
  if (!r.stderr_text.empty()) return process::first_line(r.stderr_text);
  return r.error.empty() ? "exit " + std::to_string(r.exit_code.value_or(-1)) : r.error;
}

}  // namespace

int service_install_command(CommandContext& ctx, const ServiceOptions& options) {
  const auto& settings = ctx.global().settings;
  auto paths = resolve_paths(settings);
  if (!paths) return ctx.report(paths.error());
  if (paths->binary.empty())
    return ctx.report(
        core::Error{core::ErrorCode::internal, "cannot tell where this agentry binary is (/proc/self/exe)", {}});
  auto files = service_files(settings);
  if (!files) return ctx.report(files.error());
  const std::string listen = options.listen.empty() ? settings.listen : options.listen;
  if (auto url = parse_listen_url(listen); !url) return ctx.usage_error("--listen: " + url.error().message);
  const auto unit = service_unit(paths->binary, listen, paths->home, paths->config_dir, settings, ctx.env(), *files);
  const std::string text = render_unit(unit);
  json::array secret_names;
  for (const auto& s : unit.secrets) secret_names.push_back(json::string(s.first));
  json::object result{{"unit", files->unit.string()},
                      {"environmentFile", files->environment_file.string()},
                      {"secrets", secret_names},
                      {"written", false},
                      {"systemd", false},
                      {"enabled", false},
                      {"text", text}};
  if (options.print) {
    return ctx.print(result, [&](const json::value&) {
      std::string out = "# " + files->unit.string() + "\n" + text;
      if (!unit.secrets.empty())
        out += "# and, in " + files->environment_file.string() + " (mode 0600): the values of " +
               std::to_string(unit.secrets.size()) + " secret(s)\n";
      return out;
    });
  }
  if (auto w = write_text(files->unit, text, 0644); !w) return ctx.report(w.error());
  std::error_code ec;
  const std::string existing = fs::exists(files->environment_file, ec) ? read_text(files->environment_file) : "";
  if (auto w = write_text(files->environment_file, render_environment_file(existing, unit.secrets), 0600); !w)
    return ctx.report(w.error());
  result["written"] = true;
  const auto systemctl = find_systemctl(ctx);
  auto not_enabled = [&](const std::string& reason) {
    result["reason"] = reason;
    return ctx.print(result, [&](const json::value&) {
      return text + "\nwrote " + files->unit.string() + " and " + files->environment_file.string() + "\n" + reason +
             ": the service is not enabled. Where systemd runs your session, enable it with:\n" + enable_commands;
    });
  };
  if (!systemctl.program) return not_enabled("systemctl is not on PATH (no systemd here)");
  result["systemd"] = true;
  if (auto reload = systemctl.run({"daemon-reload"}); reload.exit_code != 0)
    return not_enabled("systemd's user manager cannot be reached (" + why(reload) + ")");
  if (auto enable = systemctl.run({"enable", "--now", service_unit_name}); enable.exit_code != 0) {
    ctx.err() << "agentry: wrote " << files->unit.string() << " but `systemctl --user enable --now "
              << service_unit_name << "` failed: " << why(enable) << "\n  see: systemctl --user status "
              << service_unit_name << "; journalctl --user -u " << service_unit_name << "\n";
    return exit_code::runtime_error;
  }
  result["enabled"] = true;
  return ctx.print(result, [&](const json::value&) {
    return "installed " + files->unit.string() + ", enabled and started " + service_unit_name + " (serving on " +
           listen +
           ")\nit starts when you log in; to start it at boot too: loginctl enable-linger \"$USER\"\n"
           "logs: journalctl --user -u " +
           service_unit_name + "\n";
  });
}

int service_uninstall_command(CommandContext& ctx) {
  auto files = service_files(ctx.global().settings);
  if (!files) return ctx.report(files.error());
  std::error_code ec;
  const bool installed = fs::exists(files->unit, ec);
  const auto systemctl = find_systemctl(ctx);
  std::string notes;
  if (systemctl.program && installed) {
    if (auto disable = systemctl.run({"disable", "--now", service_unit_name}); disable.exit_code != 0)
      notes += "note: `systemctl --user disable --now` failed (" + why(disable) + "); the files are removed anyway\n";
  }
  fs::remove(files->unit, ec);
  if (ec)
    return ctx.report(
        core::Error{core::ErrorCode::internal, "cannot remove " + files->unit.string() + ": " + ec.message(), {}});
  // Not installed: the environment file (it may hold the user's keys) is not ours to take.
  const bool had_environment = installed && fs::remove(files->environment_file, ec);
  if (systemctl.program && installed) (void)systemctl.run({"daemon-reload"});
  const json::object result{
      {"unit", files->unit.string()}, {"removed", installed}, {"environmentFileRemoved", had_environment}};
  return ctx.print(result, [&](const json::value&) {
    if (!installed) return "agentry.service is not installed (no " + files->unit.string() + ")\n";
    return notes + "stopped, disabled and removed " + files->unit.string() +
           (had_environment ? " and " + files->environment_file.string() : std::string()) + "\n";
  });
}

int service_status_command(CommandContext& ctx) {
  auto files = service_files(ctx.global().settings);
  if (!files) return ctx.report(files.error());
  std::error_code ec;
  const bool installed = fs::exists(files->unit, ec);
  const auto systemctl = find_systemctl(ctx);
  json::object result{{"unit", files->unit.string()},
                      {"installed", installed},
                      {"systemd", systemctl.program.has_value()},
                      {"enabled", nullptr},
                      {"active", nullptr}};
  if (systemctl.program) {
    // is-enabled/is-active print the state and exit non-zero for "disabled"/"inactive".
    auto state = [&](const char* verb) {
      auto r = systemctl.run({verb, service_unit_name});
      auto line = process::first_line(r.stdout_text);
      return line.empty() ? std::string("unknown") : line;
    };
    result["enabled"] = state("is-enabled");
    result["active"] = state("is-active");
  }
  return ctx.print(result, [&](const json::value&) {
    std::string out = std::string("unit:    ") + files->unit.string() + (installed ? "" : " (not installed)") + "\n";
    if (!systemctl.program) return out + "systemd: systemctl is not on PATH; enabled and active are unknown\n";
    return out + "enabled: " + std::string(result["enabled"].as_string()) +
           "\nactive:  " + std::string(result["active"].as_string()) + "\n";
  });
}

}  // namespace agentry::cli
