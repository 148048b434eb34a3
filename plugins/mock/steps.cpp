// The mock's step language, one function per step (script.hpp lists what each does).
// A step returns a Finish to end the attempt, or nullopt to go on; when it stops early
// because of an interrupt it returns nullopt and Attempt::run() reports "interrupted". Each
// is a coroutine on the instance's executor: its waits suspend, they never block the thread.
#include <algorithm>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serializer.hpp>
#include <string>
#include <functional>
#include <vector>

#include "agentry/plugin/cpp/json.hpp"
#include "mock/attempt.hpp"
#include "mock/exec.hpp"
#include "mock/jpeg.hpp"

namespace agentry::mock {
namespace json = boost::json;

namespace {

/// `value` serialized into `out` (its old content replaced, its capacity kept).
void serialize_into(std::string& out, const json::object& value) {
  json::serializer serializer;
  serializer.reset(&value);
  out.clear();
  char buffer[1024];
  while (!serializer.done()) out.append(serializer.read(buffer));
}

// `text` cut into `n` pieces of about equal size, never inside a UTF-8 sequence (each
// delta must itself be valid UTF-8). Short texts give some empty pieces.
std::vector<std::string> split_utf8(const std::string& text, uint32_t n) {
  std::vector<std::string> pieces;
  std::size_t begin = 0;
  for (uint32_t i = 1; i <= n; ++i) {
    std::size_t end = i == n ? text.size() : text.size() * i / n;
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    end = std::max(end, begin);
    pieces.push_back(text.substr(begin, end - begin));
    begin = end;
  }
  return pieces;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace

Attempt::Task<std::optional<Finish>> Attempt::step(const Say& s) {
  const std::string item = next_id("msg");
  const auto t0 = Clock::now();
  uint64_t i = 0;
  for (const std::string& piece : split_utf8(s.text, s.deltas)) {
    if (!co_await pace(t0, i++, s.rate_hz)) co_return std::nullopt;
    emit(AGENTRY_EVENT_MESSAGE_DELTA, {{"text", piece}, {"itemId", item}}, AGENTRY_EVENT_FLAG_EPHEMERAL);
  }
  emit(AGENTRY_EVENT_MESSAGE_COMPLETED, {{"text", s.text}, {"itemId", item}, {"role", "assistant"}});
  co_return std::nullopt;
}

Attempt::Task<std::optional<Finish>> Attempt::step(const Events& s) {
  const uint32_t flags = s.ephemeral ? uint32_t{AGENTRY_EVENT_FLAG_EPHEMERAL} : 0u;
  const std::string item = s.delta ? next_id("msg") : std::string();
  std::string whole;  // the deltas' text, for the completed message
  const auto t0 = Clock::now();
  // Benchmarks stream these by the hundred thousand: each payload is built in a stack
  // arena and written into one reused buffer, so the mock's own heap work stays out of
  // what they measure of the host.
  std::string payload_text;
  for (uint64_t i = 1; i <= s.count; ++i) {
    if (!co_await pace(t0, i - 1, s.rate_hz)) co_return std::nullopt;
    unsigned char scratch[512];
    boost::json::monotonic_resource arena(scratch, sizeof scratch);
    const std::string text = "event " + std::to_string(i);
    boost::json::object payload(&arena);
    payload.reserve(4);
    if (s.delta) {
      payload.emplace("text", text);
      payload.emplace("itemId", item);
    } else {
      payload.emplace("level", "info");
      payload.emplace("message", text);
    }
    payload.emplace("index", i);
    if (s.complete) whole += text;
    if (s.timestamps) payload.emplace("emittedAtNs", std::chrono::steady_clock::now().time_since_epoch().count());
    serialize_into(payload_text, payload);
    emit_text(s.delta ? AGENTRY_EVENT_MESSAGE_DELTA : AGENTRY_EVENT_NOTICE, payload_text, flags);
  }
  if (s.complete)
    emit(AGENTRY_EVENT_MESSAGE_COMPLETED, {{"text", whole}, {"itemId", item}, {"role", "assistant"}});
  co_return std::nullopt;
}

Attempt::Task<std::optional<Finish>> Attempt::step(const Frame& s) {
  // A host older than ABI 1.2 does not know the event: it would show up as "event.15".
  const agentry_version_t v = host_.raw()->abi_version;
  if (v.major == 1 && v.minor < 2) {
    notice("warning", "frame step skipped: the host's ABI is older than 1.2");
    co_return std::nullopt;
  }
  if (!s.unavailable.empty()) {
    emit(AGENTRY_EVENT_BROWSER_FRAME, {{"status", "unavailable"}, {"reason", s.unavailable}},
         AGENTRY_EVENT_FLAG_EPHEMERAL);
    co_return std::nullopt;
  }
  const auto t0 = Clock::now();
  for (uint64_t i = 1; i <= s.count; ++i) {
    if (!co_await pace(t0, i - 1, s.rate_hz)) co_return std::nullopt;
    emit(AGENTRY_EVENT_BROWSER_FRAME,
         {{"mime", "image/jpeg"}, {"data", tiny_jpeg_base64()}, {"width", 8}, {"height", 8},
          {"url", "mock://frame/" + std::to_string(i)}},
         AGENTRY_EVENT_FLAG_EPHEMERAL);
  }
  co_return std::nullopt;
}

Attempt::Task<std::optional<Finish>> Attempt::step(const Reasoning& s) {
  emit(AGENTRY_EVENT_REASONING, {{"text", s.text}, {"itemId", next_id("reasoning")}});
  co_return std::nullopt;
}

Attempt::Task<std::optional<Finish>> Attempt::step(const Tool& s) {
  const std::string id = next_id("tool");
  emit(AGENTRY_EVENT_TOOL_STARTED, {{"toolCallId", id}, {"tool", "command"}, {"command", s.command}});
  emit(AGENTRY_EVENT_TOOL_COMPLETED, {{"toolCallId", id},
                                      {"tool", "command"},
                                      {"status", s.exit_code == 0 ? "completed" : "failed"},
                                      {"output", s.output},
                                      {"exitCode", s.exit_code}});
  co_return std::nullopt;
}

Attempt::Task<std::optional<Finish>> Attempt::step(const Usage& s) {
  emit_text(AGENTRY_EVENT_USAGE, s.json);
  co_return std::nullopt;
}

Attempt::Task<std::optional<Finish>> Attempt::step(const Notice& s) {
  notice("info", s.text);
  co_return std::nullopt;
}

Attempt::Task<std::optional<Finish>> Attempt::step(const Checkpoint& s) {
  emit(AGENTRY_EVENT_CHECKPOINT, {{"resumeToken", s.token}});
  co_return std::nullopt;
}

Attempt::Task<std::optional<Finish>> Attempt::step(const Ask& s) {
  const std::string id = next_id("approval");
  {
    // Registered before the request goes out, so an answer that comes back at once
    // is not refused as unknown.
    std::lock_guard lock(mutex_);
    pending_approval_ = id;
    decision_.reset();
  }
  emit(AGENTRY_EVENT_APPROVAL_REQUEST, {{"approvalId", id}, {"kind", s.kind}, {"summary", s.summary}});
  const std::function<bool()> decided = [this] { return decision_.has_value(); };
  const bool answered = co_await wait_forever(decided);
  bool approved = false;
  {
    std::lock_guard lock(mutex_);
    approved = decision_.value_or(false);
    pending_approval_.clear();
    decision_.reset();
  }
  if (!answered) co_return std::nullopt;
  notice("info", "approval " + id + ": " + (approved ? "approve" : "deny"));
  if (!approved) co_return Finish{"error", "approval " + id + " was denied"};
  co_return std::nullopt;
}

Attempt::Task<std::optional<Finish>> Attempt::step(const WaitInput&) {
  const std::function<bool()> arrived = [this] { return !messages_.empty(); };
  if (!co_await wait_forever(arrived)) co_return std::nullopt;
  std::string text;
  {
    std::lock_guard lock(mutex_);
    text = std::move(messages_.front());
    messages_.pop_front();
  }
  emit(AGENTRY_EVENT_MESSAGE_COMPLETED, {{"text", text}, {"itemId", next_id("msg")}, {"role", "assistant"}});
  co_return std::nullopt;
}

Attempt::Task<std::optional<Finish>> Attempt::step(const Sleep& s) {
  const Clock::time_point until = Clock::now() + std::chrono::milliseconds(s.ms);
  co_await sleep_until(until);
  co_return std::nullopt;
}

Attempt::Task<std::optional<Finish>> Attempt::step(const Hang&) {
  const std::function<bool()> never = [] { return false; };
  co_await wait_forever(never);
  co_return std::nullopt;
}

Attempt::Task<std::optional<Finish>> Attempt::step(const Fail& s) { co_return Finish{"error", s.message}; }

Attempt::Task<std::optional<Finish>> Attempt::step(const Exec& s) {
  const std::string id = next_id("tool");
  const std::string command = join(s.argv);
  emit(AGENTRY_EVENT_TOOL_STARTED, {{"toolCallId", id}, {"tool", "command"}, {"command", command}});
  exec_result_.reset();
  // The child's I/O runs on this executor; an interrupt kills its group (interrupt()).
  // Behind the launcher (an execution environment's sandbox or container), like an agent.
  std::vector<std::string> argv = script_.launcher_command;
  argv.insert(argv.end(), s.argv.begin(), s.argv.end());
  std::vector<std::string> env = script_.launcher_env;
  env.insert(env.end(), params_.env.begin(), params_.env.end());
  exec_child_ = start_process(executor_.get_executor(), argv, env, params_.workspace_path,
                              [self = shared_from_this()](ExecResult r) {
                                self->exec_result_ = std::move(r);
                                self->changed_.notify();
                              });
  if (exec_child_ && interrupted()) exec_child_->kill();
  while (!exec_result_) {
    const Clock::time_point slice = Clock::now() + std::chrono::hours(1);
    co_await changed_.wait_until(slice);
  }
  exec_child_.reset();
  ExecResult r = std::move(*exec_result_);
  exec_result_.reset();
  r.stopped = interrupted();
  if (!r.error.empty()) {
    emit(AGENTRY_EVENT_TOOL_COMPLETED, {{"toolCallId", id}, {"tool", "command"}, {"status", "failed"},
                                        {"output", r.error}});
    co_return Finish{"error", r.error};
  }
  json::object done{{"toolCallId", id},
                    {"tool", "command"},
                    {"status", r.exit_code == 0 ? "completed" : "failed"},
                    {"output", plugin::sanitize_utf8(r.output)},  // a child may print any bytes
                    {"exitCode", r.exit_code}};
  if (r.truncated) done["truncated"] = true;
  emit(AGENTRY_EVENT_TOOL_COMPLETED, done);
  if (r.stopped) co_return std::nullopt;  // interrupted
  if (r.exit_code != 0) co_return Finish{"error", command + " exited with status " + std::to_string(r.exit_code)};
  co_return std::nullopt;
}

}  // namespace agentry::mock
