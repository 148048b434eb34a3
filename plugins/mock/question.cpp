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

Question::Question(plugin::Host& host, plugin_common::runtime::Executor& executor, std::string ask_id,
                   std::string request_json)
    : host_(host), ask_id_(std::move(ask_id)), request_json_(std::move(request_json)), delay_(executor.get_executor()) {}

std::shared_ptr<Question> Question::start(plugin::Host& host, plugin_common::runtime::Executor& executor,
                                          std::string ask_id, std::string request_json) {
  std::shared_ptr<Question> question(new Question(host, executor, std::move(ask_id), std::move(request_json)));
  executor.post([question] { question->begin(); });
  return question;
}

void Question::begin() {
  auto parsed = read(request_json_);
  if (!parsed || abandoned_) return;
  if (parsed->second.mode == "hang") return;  // waits until the host gives up and destroys the instance
  delay_.expires_after(std::chrono::milliseconds(parsed->second.delay_ms));
  delay_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (!ec && !self->abandoned_) self->answer();
  });
}

void Question::abandon() noexcept {
  abandoned_ = true;
  delay_.cancel();
}

void Question::answer() noexcept {
  try {
    auto parsed = read(request_json_);
    if (!parsed) return;
    const json::object answer =
        parsed->second.mode == "error"
            ? json::object{{"error", "the mock was told to fail (backendConfig.ask.mode: error)"}}
            : json::object{{"answer", describe(parsed->first)}, {"usage", {{"inputTokens", 7}, {"outputTokens", 3}}}};
    const agentry_status_t st = plugin::answer_ask(host_, ask_id_, json::serialize(answer));
    if (st != AGENTRY_OK) host_.log(AGENTRY_LOG_WARNING, "mock: the host refused the answer: " + std::to_string(st));
  } catch (...) {
    host_.log(AGENTRY_LOG_ERROR, "mock: answering a question failed");
  }
}

}  // namespace agentry::mock
