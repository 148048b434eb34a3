#include "mock/script.hpp"

#include <array>
#include <boost/json.hpp>
#include <initializer_list>
#include <sstream>
#include <string_view>

namespace agentry::mock {
namespace json = boost::json;

namespace {

// Thrown inside this file only, to unwind out of a step with its message.
struct ScriptError {
  std::string message;
};

[[noreturn]] void fail(const std::string& message) { throw ScriptError{message}; }

std::optional<double> as_number(const json::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  if (v.is_double()) return v.get_double();
  return std::nullopt;
}

// Reads step fields and names the step in every complaint.
class StepReader {
 public:
  StepReader(const json::object& obj, std::string_view kind) : obj_(obj), kind_(kind) {}

  // Rejects keys the step does not know: a typo ("delta" for "deltas") would otherwise
  // silently change what a test does.
  void allow(std::initializer_list<std::string_view> keys) const {
    for (const auto& kv : obj_) {
      bool known = kv.key() == kind_;
      for (auto k : keys) known = known || kv.key() == k;
      if (!known) fail("\"" + std::string(kind_) + "\" step: unknown key \"" + std::string(kv.key()) + "\"");
    }
  }
  const json::value* find(std::string_view key) const { return obj_.if_contains(key); }
  std::string string(std::string_view key, std::string fallback = {}) const {
    const json::value* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_string()) complain(key, "a string");
    return std::string(v->get_string());
  }
  uint64_t count(std::string_view key, uint64_t fallback) const {
    const json::value* v = find(key);
    if (v == nullptr) return fallback;
    if (v->is_int64() && v->get_int64() >= 0) return static_cast<uint64_t>(v->get_int64());
    if (v->is_uint64()) return v->get_uint64();
    complain(key, "a non-negative integer");
  }
  int64_t integer(std::string_view key, int64_t fallback) const {
    const json::value* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_int64()) complain(key, "an integer");
    return v->get_int64();
  }
  double rate(std::string_view key) const {
    const json::value* v = find(key);
    if (v == nullptr) return 0;
    auto n = as_number(*v);
    if (!n || *n < 0) complain(key, "a non-negative number");
    return *n;
  }
  bool boolean(std::string_view key, bool fallback) const {
    const json::value* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_bool()) complain(key, "true or false");
    return v->get_bool();
  }

 private:
  [[noreturn]] void complain(std::string_view key, std::string_view what) const {
    fail("\"" + std::string(kind_) + "\" step: \"" + std::string(key) + "\" must be " + std::string(what));
  }
  const json::object& obj_;
  std::string_view kind_;
};

constexpr std::array<std::string_view, 14> kKinds = {"say",        "events", "reasoning", "tool",     "usage",
                                                     "notice",     "checkpoint", "ask",   "waitInput", "sleepMs",
                                                     "hang",       "fail",   "exec",      "frame"};

Step parse_step(const json::value& value) {
  if (!value.is_object()) fail("a step must be a JSON object");
  const json::object& obj = value.get_object();
  std::string_view kind;
  for (auto k : kKinds) {
    if (!obj.contains(k)) continue;
    if (!kind.empty()) fail("a step has both \"" + std::string(kind) + "\" and \"" + std::string(k) + "\"");
    kind = k;
  }
  if (kind.empty()) fail("a step needs one of: say, events, reasoning, tool, usage, notice, checkpoint, ask, "
                         "waitInput, sleepMs, hang, fail, exec, frame");
  const StepReader r(obj, kind);
  if (kind == "say") {
    r.allow({"deltas", "rateHz"});
    const uint64_t deltas = r.count("deltas", 1);
    if (deltas > 1'000'000) fail("\"say\" step: \"deltas\" is over 1000000");
    return Say{r.string("say"), static_cast<uint32_t>(deltas), r.rate("rateHz")};
  }
  if (kind == "events") {
    r.allow({"kind", "ephemeral", "rateHz", "timestamps", "complete"});
    const std::string k = r.string("kind", "notice");
    if (k != "notice" && k != "delta") fail("\"events\" step: \"kind\" must be \"notice\" or \"delta\"");
    const bool delta = k == "delta";
    const bool complete = r.boolean("complete", false);
    if (complete && !delta) fail("\"events\" step: \"complete\" is for \"kind\": \"delta\"");
    return Events{r.count("events", 0), delta, r.boolean("ephemeral", delta), r.rate("rateHz"),
                  r.boolean("timestamps", false), complete};
  }
  r.allow({});  // every other step is its one key
  if (kind == "reasoning") return Reasoning{r.string("reasoning")};
  if (kind == "notice") return Notice{r.string("notice")};
  if (kind == "checkpoint") return Checkpoint{r.string("checkpoint")};
  if (kind == "fail") return Fail{r.string("fail")};
  if (kind == "sleepMs") return Sleep{r.count("sleepMs", 0)};
  if (kind == "hang") return Hang{};
  if (kind == "waitInput") return WaitInput{};
  if (kind == "usage") {
    if (!obj.at("usage").is_object()) fail("\"usage\" step: the value must be an object");
    return Usage{json::serialize(obj.at("usage"))};
  }
  if (kind == "frame") {
    if (!obj.at("frame").is_object()) fail("\"frame\" step: the value must be an object");
    const StepReader inner(obj.at("frame").get_object(), kind);
    inner.allow({"count", "rateHz", "unavailable"});
    Frame frame{inner.count("count", 1), inner.rate("rateHz"), inner.string("unavailable", "")};
    if (frame.count > 100000) fail("\"frame\" step: \"count\" is over 100000");
    return frame;
  }
  if (kind == "tool" || kind == "ask") {
    if (!obj.at(kind).is_object()) fail("\"" + std::string(kind) + "\" step: the value must be an object");
    const StepReader inner(obj.at(kind).get_object(), kind);
    if (kind == "ask") {
      inner.allow({"summary", "kind"});
      return Ask{inner.string("summary"), inner.string("kind", "command")};
    }
    inner.allow({"command", "output", "exitCode"});
    return Tool{inner.string("command"), inner.string("output"), inner.integer("exitCode", 0)};
  }
  // exec
  const json::value& argv = obj.at("exec");
  Exec exec;
  if (argv.is_array())
    for (const auto& a : argv.get_array())
      if (a.is_string()) exec.argv.emplace_back(a.get_string());
  if (exec.argv.empty() || exec.argv.size() != argv.get_array().size())
    fail("\"exec\" step: the value must be a non-empty array of strings");
  return exec;
}

// The `@mock {...}` lines of the prompt, in order.
std::vector<std::string> mock_lines(std::string_view prompt) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(prompt)};
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("@mock ", 0) == 0) lines.push_back(line.substr(6));
  }
  return lines;
}

std::string prompt_of(const std::string& input_json) {
  json::error_code ec;
  json::value input = json::parse(input_json, ec);
  if (ec || !input.is_object()) return {};
  const json::value* prompt = input.get_object().if_contains("prompt");
  return prompt != nullptr && prompt->is_string() ? std::string(prompt->get_string()) : std::string();
}

}  // namespace

Script parse_script(const std::string& config_json, const std::string& input_json) {
  Script script;
  std::size_t index = 0;  // 1-based once parsing steps, for error messages
  try {
    json::error_code ec;
    json::value config = config_json.empty() ? json::value() : json::parse(config_json, ec);
    if (ec) fail("config_json is not JSON: " + ec.message());
    if (config.is_object())
      if (const json::value* l = config.get_object().if_contains("launcher"); l && l->is_object()) {
        if (const json::value* c = l->get_object().if_contains("command"); c && c->is_array())
          for (const auto& a : c->get_array())
            if (a.is_string()) script.launcher_command.emplace_back(a.get_string());
        if (const json::value* e = l->get_object().if_contains("env"); e && e->is_object())
          for (const auto& [key, value] : e->get_object())
            if (value.is_string()) script.launcher_env.push_back(std::string(key) + "=" + std::string(value.get_string()));
      }
    const json::value* steps = nullptr;
    if (config.is_object())
      if (const json::value* bc = config.get_object().if_contains("backendConfig"); bc && bc->is_object())
        steps = bc->get_object().if_contains("steps");
    if (steps != nullptr) {
      if (!steps->is_array()) fail("backendConfig.steps must be an array");
      for (const auto& step : steps->get_array()) ++index, script.steps.push_back(parse_step(step));
      return script;
    }
    const std::string prompt = prompt_of(input_json);
    const auto lines = mock_lines(prompt);
    for (const auto& line : lines) {
      ++index;
      json::value step = json::parse(line, ec);
      if (ec) fail("not a JSON object: " + line);
      script.steps.push_back(parse_step(step));
    }
    if (lines.empty()) script.steps.push_back(Say{prompt, 0, 0});  // no script: echo the prompt
  } catch (const ScriptError& e) {
    script.steps.clear();
    script.error = "mock script: " + (index > 0 ? "step " + std::to_string(index) + ": " : std::string()) + e.message;
  }
  return script;
}

}  // namespace agentry::mock
