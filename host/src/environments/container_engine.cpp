#include "environments/container_engine.hpp"

#include "process/runner.hpp"

#include <boost/json/parse.hpp>

namespace agentry::environments {
namespace json = boost::json;
namespace {

std::string text(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

const json::object* object_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

/// The last lines of the engine's stderr (its error is at the end), else stdout's.
std::string engine_words(const process::RunResult& r) {
  std::string words = r.stderr_text.empty() ? r.stdout_text : r.stderr_text;
  while (!words.empty() && (words.back() == '\n' || words.back() == '\r' || words.back() == ' ')) words.pop_back();
  constexpr std::size_t keep = 600;
  if (words.size() > keep) words = "..." + words.substr(words.size() - keep);
  return words;
}

}  // namespace

ContainerEngine::ContainerEngine(std::string engine, std::vector<std::string> engine_args)
    : engine_(std::move(engine)), engine_args_(std::move(engine_args)) {}

std::vector<std::string> ContainerEngine::command(const std::vector<std::string>& args) const {
  std::vector<std::string> argv{engine_};
  argv.insert(argv.end(), engine_args_.begin(), engine_args_.end());
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

EngineResult ContainerEngine::run(const std::vector<std::string>& args,
                                  const std::vector<std::pair<std::string, std::string>>& env,
                                  std::chrono::milliseconds timeout, const std::function<bool()>& cancelled) const {
  process::RunRequest request{command(args), {}, env, {}};
  process::RunLimits limits;
  limits.timeout = timeout;
  limits.max_stdout_bytes = 4 * 1024 * 1024;  // inspect and ps print JSON
  limits.cancelled = cancelled;
  const auto r = process::run_program(request, limits);
  EngineResult out;
  out.out = r.stdout_text;
  if (r.exit_code) out.exit_code = *r.exit_code;
  if (r.not_startable) {
    out.engine_missing = true;
    out.error = "the container engine '" + engine_ + "' is not installed (not found on the daemon's PATH): " + r.error;
    return out;
  }
  if (r.timed_out) {
    out.error = engine_ + " " + (args.empty() ? "" : args.front()) + " did not finish within " +
                std::to_string(timeout.count() / 1000) + " s";
    return out;
  }
  if (r.cancelled) {
    out.error = engine_ + " " + (args.empty() ? "" : args.front()) + " was stopped: the run is stopping";
    return out;
  }
  out.ok = r.exit_code && *r.exit_code == 0;
  if (!out.ok) {
    out.error = engine_ + " " + (args.empty() ? "" : args.front()) + " failed";
    if (r.exit_code) out.error += " (exit code " + std::to_string(*r.exit_code) + ")";
    else if (r.signal) out.error += " (signal " + std::to_string(*r.signal) + ")";
    if (auto words = engine_words(r); !words.empty()) out.error += ": " + words;
  }
  return out;
}

ContainerState parse_container_state(const json::object& o) {
  ContainerState s;
  s.id = text(o, "Id");
  s.name = text(o, "Name");
  if (!s.name.empty() && s.name.front() == '/') s.name.erase(0, 1);  // docker's "/name"
  if (const auto* state = object_at(o, "State")) {
    s.status = text(*state, "Status");
    if (const auto* r = state->if_contains("Running"); r && r->is_bool()) s.running = r->as_bool();
    if (const auto* c = state->if_contains("ExitCode"); c && c->is_int64()) s.exit_code = static_cast<int>(c->as_int64());
    if (const auto* k = state->if_contains("OOMKilled"); k && k->is_bool()) s.oom_killed = k->as_bool();
  }
  if (const auto* config = object_at(o, "Config"))
    if (const auto* labels = object_at(*config, "Labels"))
      for (const auto& [key, value] : *labels)
        if (value.is_string()) s.labels[std::string(key)] = std::string(value.as_string());
  if (const auto* mounts = o.if_contains("Mounts"); mounts && mounts->is_array())
    for (const auto& m : mounts->as_array())
      if (m.is_object()) {
        const auto* rw = m.as_object().if_contains("RW");
        s.mounts.push_back({text(m.as_object(), "Source"), text(m.as_object(), "Destination"),
                            rw && rw->is_bool() && !rw->as_bool()});
      }
  return s;
}

std::optional<ContainerState> ContainerEngine::inspect(const std::string& container, EngineResult* failure) const {
  auto r = run({"container", "inspect", container}, {}, std::chrono::seconds(30));
  if (!r.ok) {
    // "no such container" is an answer, not a failure: both engines say so on stderr.
    const bool absent = !r.engine_missing && (r.error.find("no such container") != std::string::npos ||
                                              r.error.find("No such container") != std::string::npos ||
                                              r.error.find("no container with") != std::string::npos);
    if (!absent && failure) *failure = r;
    return std::nullopt;
  }
  try {
    auto parsed = json::parse(r.out);
    if (parsed.is_array() && !parsed.as_array().empty() && parsed.as_array().front().is_object())
      return parse_container_state(parsed.as_array().front().as_object());
  } catch (const std::exception&) {
  }
  if (failure) {
    *failure = r;
    failure->ok = false;
    failure->error = name() + " container inspect printed no container description";
  }
  return std::nullopt;
}

std::vector<ContainerState> ContainerEngine::list(const std::string& label, EngineResult* failure) const {
  std::vector<ContainerState> out;
  auto ids = run({"ps", "-a", "-q", "--no-trunc", "--filter", "label=" + label}, {}, std::chrono::seconds(30));
  if (!ids.ok) {
    if (failure) *failure = ids;
    return out;
  }
  std::vector<std::string> args{"container", "inspect"};
  std::size_t start = 0;
  while (start < ids.out.size()) {
    auto end = ids.out.find('\n', start);
    if (end == std::string::npos) end = ids.out.size();
    if (end > start) args.push_back(ids.out.substr(start, end - start));
    start = end + 1;
  }
  if (args.size() == 2) return out;
  auto r = run(args, {}, std::chrono::seconds(30));
  // A container removed between ps and inspect fails the whole inspect: ask once more
  // for the rest, one by one.
  if (!r.ok) {
    for (std::size_t i = 2; i < args.size(); ++i)
      if (auto one = inspect(args[i])) out.push_back(std::move(*one));
    return out;
  }
  try {
    auto parsed = json::parse(r.out);
    if (parsed.is_array())
      for (const auto& item : parsed.as_array())
        if (item.is_object()) out.push_back(parse_container_state(item.as_object()));
  } catch (const std::exception&) {
  }
  return out;
}

EngineResult ContainerEngine::remove(const std::string& container) const {
  // The keep-alive command is pid 1, which ignores SIGTERM: podman would wait out its
  // stop timeout (10 s) before killing it; docker's rm -f kills at once.
  auto r = run(engine_ == "podman" ? std::vector<std::string>{"rm", "-f", "-t", "0", container}
                                   : std::vector<std::string>{"rm", "-f", container},
               {}, std::chrono::seconds(60));
  if (!r.ok && (r.error.find("no such container") != std::string::npos ||
                r.error.find("No such container") != std::string::npos)) {
    r.ok = true;
    r.error.clear();
  }
  return r;
}

}  // namespace agentry::environments
