#pragma once
// The checks of `agentry doctor` (commands/doctor_command.cpp prints them). Each looks
// at one thing a run needs on this machine and says, when it is not right, how to put
// it right. They read; they create, migrate and change nothing (a store that is not
// there yet is fine: serve makes it). Slow steps are bounded: an agent CLI's --version
// gets a few seconds, the SQLite integrity check at most 20 problems.

#include "cli/environment.hpp"
#include "cli/paths.hpp"
#include "core/settings.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace agentry::cli {

enum class CheckStatus { ok, warn, fail };
std::string_view to_string(CheckStatus status);

struct DoctorCheck {
  std::string name;  // what was checked, e.g. "store", "backend codex: agent CLI"
  CheckStatus status = CheckStatus::ok;
  std::string detail;  // what was found
  std::string fix;     // how to fix it; empty when ok
};

using DoctorChecks = std::vector<DoctorCheck>;

struct DoctorInput {
  const core::Settings& settings;
  const Paths& paths;
  const Environment& env;
};

// doctor_checks.cpp
/// The store: reachable, writable (SQLite), schema version, integrity.
void check_store(const DoctorInput& in, DoctorChecks& out);
/// git on PATH and the libgit2 agentry runs with.
void check_git(const DoctorInput& in, DoctorChecks& out);
/// index.html in the web directory.
void check_dashboard(const DoctorInput& in, DoctorChecks& out);
/// Auth on without a token fails; listening beyond loopback without auth warns.
void check_auth(const DoctorInput& in, DoctorChecks& out);
/// Free space of the filesystems of the home and the config directory (warn under 1 GiB).
void check_disk(const DoctorInput& in, DoctorChecks& out);

// doctor_backend_checks.cpp
/// Every definition problem (a file that cannot be used fails, a warning warns), every
/// plugin loaded or not, each agent's backend loaded, each backend's agent CLI (found,
/// its --version) and Chromium for the browser backend.
void check_definitions_and_backends(const DoctorInput& in, DoctorChecks& out);

/// The first line `program --version` prints (within 5 s); an error text when it cannot.
struct ProgramVersion {
  bool ok = false;
  std::string text;
};
ProgramVersion program_version(const std::string& program);

}  // namespace agentry::cli
