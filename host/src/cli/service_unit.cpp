#include "cli/service_unit.hpp"

#include "cli/programs.hpp"
#include "core/uri_secrets.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace agentry::cli {
namespace fs = std::filesystem;
namespace {

// Settings a daemon has no use for (a client's), or that the unit states otherwise.
const std::set<std::string> not_for_the_daemon{
    "AGENTRY_LISTEN",          "AGENTRY_CONNECT", "AGENTRY_CONNECT_TIMEOUT_MS",
    "AGENTRY_CALL_TIMEOUT_MS", "AGENTRY_HOME",    "AGENTRY_CONFIG_DIR"};

bool is_secret(const std::string& name, const std::string& value) {
  if (name == "AGENTRY_DAEMON_TOKEN") return true;
  return name == "AGENTRY_STORE" && core::redact_uri(value) != value;
}

// systemd expands %-specifiers in every value and $ in command lines: both doubled.
std::string escape_specifiers(const std::string& text, bool command_line) {
  std::string out;
  for (char c : text) {
    if (c == '%')
      out += "%%";
    else if (c == '$' && command_line)
      out += "$$";
    else
      out += c;
  }
  return out;
}

// A double-quoted word of a unit file (C-style escapes for backslash and quote).
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string command_word(const std::string& word) {
  const bool plain = std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("/._-:+=,@").find(c) != std::string_view::npos;
  });
  return escape_specifiers(plain ? word : quoted(word), true);
}

}  // namespace

core::Result<ServiceFiles> service_files(const core::Settings& settings) {
  fs::path base;
  if (!settings.xdg_config_home.empty())
    base = settings.xdg_config_home;
  else if (!settings.user_home.empty())
    base = fs::path(settings.user_home) / ".config";
  else
    return core::fail(core::ErrorCode::validation,
                      "cannot choose where the unit goes: neither XDG_CONFIG_HOME nor HOME is set");
  base = fs::absolute(base);
  return ServiceFiles{base / "systemd" / "user" / service_unit_name, base / "agentry" / "service.env"};
}

ServiceUnit service_unit(const fs::path& binary, const std::string& listen, const fs::path& home,
                         const fs::path& config_dir, const core::Settings& settings, const Environment& env,
                         const ServiceFiles& files) {
  ServiceUnit unit;
  unit.binary = binary;
  unit.listen = listen;
  unit.environment_file = files.environment_file;
  unit.environment.emplace_back("AGENTRY_HOME", home.string());
  unit.environment.emplace_back("AGENTRY_CONFIG_DIR", config_dir.string());
  auto add = [&unit](const std::string& name, const std::string& value) {
    (is_secret(name, value) ? unit.secrets : unit.environment).emplace_back(name, value);
  };
  for (const auto& entry : settings.entries) {
    if (entry.origin != core::SettingOrigin::environment || !entry.name.starts_with("AGENTRY_")) continue;
    if (not_for_the_daemon.contains(entry.name)) continue;
    add(entry.name, env.get(entry.name));  // the raw value: a secret's entry shows only "(set)"
  }
  for (const auto& program : backend_programs())
    if (env.has(program.variable)) add(program.variable, env.get(program.variable));
  if (env.has("PATH")) unit.environment.emplace_back("PATH", env.get("PATH"));
  return unit;
}

std::string render_unit(const ServiceUnit& unit) {
  std::ostringstream out;
  out << "# Written by `agentry service install`; `agentry service uninstall` removes it.\n"
         "# Install again to take up changed settings.\n"
         "[Unit]\n"
         "Description=agentry daemon: durable AI agent runs (HTTP API, WebSocket, dashboard)\n"
         "\n"
         "[Service]\n"
         "Type=simple\n"
      << "ExecStart=" << command_word(unit.binary.string()) << " serve --listen " << command_word(unit.listen) << "\n";
  for (const auto& [name, value] : unit.environment)
    out << "Environment=" << escape_specifiers(quoted(name + "=" + value), false) << "\n";
  // Optional ('-'): secrets, and whatever else the user puts there (API keys for agents).
  out << "EnvironmentFile=-" << escape_specifiers(unit.environment_file.string(), false) << "\n"
      << "Restart=on-failure\n"
         "RestartSec=5\n"
         "# Exit 3 is a refused configuration: restarting would not fix it.\n"
         "RestartPreventExitStatus=3\n"
         "# SIGTERM to serve alone: it interrupts the runs it drives and records how they ended, and\n"
         "# leaves agents that work on without it (Codex over a socket) to be taken over at its next start.\n"
         "KillMode=process\n"
         "TimeoutStopSec=60\n"
         "\n"
         "[Install]\n"
         "WantedBy=default.target\n";
  return out.str();
}

std::string render_environment_file(const std::string& existing, const Variables& secrets) {
  std::ostringstream out;
  std::istringstream lines(existing);
  std::string line;
  bool header = existing.empty();
  while (std::getline(lines, line)) {
    const auto eq = line.find('=');
    const std::string name = eq == std::string::npos ? "" : line.substr(0, eq);
    const bool ours = std::any_of(secrets.begin(), secrets.end(), [&](const auto& s) { return s.first == name; });
    if (!ours) out << line << "\n";
  }
  if (header)
    out << "# The agentry service's secrets and extra environment (mode 0600), read by agentry.service.\n"
           "# Add what agents need here (e.g. OPENAI_API_KEY=...); `agentry service install` keeps it.\n";
  for (const auto& [name, value] : secrets) out << name << "=" << quoted(value) << "\n";
  return out.str();
}

}  // namespace agentry::cli
