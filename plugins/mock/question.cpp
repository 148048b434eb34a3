#include "mock/question.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>

#include "agentry/plugin/cpp/ask.hpp"
#include "agentry/plugin_common/json_fields.hpp"

namespace agentry::mock {
namespace json = boost::json;
using plugin_common::int_field;
using plugin_common::object_field;
using plugin_common::text_field;

namespace {

struct Settings {
  std::string mode = "answer";
  int64_t delay_ms = 0;
};

// backendConfig.ask of the request's config; nullopt when the request is malformed.
std::optional<std::pair<json::object, Settings>> read(const std::string& request_json) {
  json::error_code ec;
  json::value v = json::parse(request_json, ec);
  if (ec || !v.is_object()) return std::nullopt;
  Settings s;
  if (const auto* config = object_field(&v.get_object(), "config"))
    if (const auto* backend = object_field(config, "backendConfig"))
      if (const auto* ask = object_field(backend, "ask")) {
        if (auto mode = text_field(ask, "mode"); !mode.empty()) s.mode = mode;
        s.delay_ms = int_field(ask, "delayMs").value_or(0);
      }
  return std::make_pair(std::move(v.get_object()), s);
}

// "status=..; tasks=done/total; final=..; frame=yes|no; resume=..; question=..": what the host sent.
std::string describe(const json::object& request) {
  const json::object empty;
  const json::object* state = object_field(&request, "state");
  if (!state) state = &empty;
  std::size_t total = 0, done = 0;
  if (const json::value* tasks = state->if_contains("tasks"); tasks && tasks->is_array())
    for (const auto& t : tasks->get_array()) {
      ++total;
      if (t.is_object() && text_field(&t.get_object(), "status") == "completed") ++done;
    }
  std::size_t recent = 0;
  if (const json::value* r = state->if_contains("recentTimeline"); r && r->is_array()) recent = r->get_array().size();
  const json::value* frame = state->if_contains("latestFrame");
  const json::value* resume = request.if_contains("resumeToken");
  const std::string final_message = text_field(state, "finalMessage");
  return "status=" + text_field(state, "status") + "; tasks=" + std::to_string(done) + "/" + std::to_string(total) +
         "; recent=" + std::to_string(recent) + "; final=" + (final_message.empty() ? "none" : final_message) +
         "; frame=" + (frame && frame->is_object() ? "yes" : "no") +
         "; resume=" + (resume && resume->is_string() ? std::string(resume->get_string()) : "none") +
         "; question=" + text_field(&request, "question");
}

}  // namespace

agentry_status_t Question::check(const std::string& request_json) {
  auto parsed = read(request_json);
  if (!parsed) return AGENTRY_ERR_INVALID_ARGUMENT;
  const std::string& mode = parsed->second.mode;
  if (mode == "unsupported") return AGENTRY_ERR_UNSUPPORTED;
  if (mode != "answer" && mode != "error" && mode != "hang") return AGENTRY_ERR_INVALID_ARGUMENT;
  return AGENTRY_OK;
}

Question::Question(plugin::Host& host, std::string ask_id, std::string request_json)
    : host_(host), ask_id_(std::move(ask_id)), request_json_(std::move(request_json)) {
  worker_ = std::thread([this] { run(); });
}

Question::~Question() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  cancelled_cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void Question::run() noexcept {
  try {
    auto parsed = read(request_json_);
    if (!parsed) return;
    const Settings& s = parsed->second;
    {
      std::unique_lock lock(mutex_);
      // "hang" waits until the host gives up and destroys the instance.
      const auto wait = s.mode == "hang" ? std::chrono::hours(24) : std::chrono::milliseconds(s.delay_ms);
      if (cancelled_cv_.wait_for(lock, wait, [this] { return cancelled_; })) return;
    }
    const json::object answer =
        s.mode == "error"
            ? json::object{{"error", "the mock was told to fail (backendConfig.ask.mode: error)"}}
            : json::object{{"answer", describe(parsed->first)}, {"usage", {{"inputTokens", 7}, {"outputTokens", 3}}}};
    const agentry_status_t st = plugin::answer_ask(host_, ask_id_, json::serialize(answer));
    if (st != AGENTRY_OK) host_.log(AGENTRY_LOG_WARNING, "mock: the host refused the answer: " + std::to_string(st));
  } catch (...) {
    host_.log(AGENTRY_LOG_ERROR, "mock: answering a question failed");
  }
}

}  // namespace agentry::mock
