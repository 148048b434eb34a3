#include "cli/environment.hpp"

#include <system_error>

extern char** environ;

namespace agentry::cli {

Environment Environment::current() {
  Environment env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    env.vars.emplace(entry.substr(0, eq), entry.substr(eq + 1));
  }
  std::error_code ec;
  env.cwd = std::filesystem::current_path(ec);
  return env;
}

std::string Environment::get(const std::string& name) const {
  auto it = vars.find(name);
  return it == vars.end() ? std::string() : it->second;
}

}  // namespace agentry::cli
