#include "question.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cerrno>
#include <chrono>

#include "agentry/plugin/cpp/ask.hpp"
#include "agentry/plugin_common/child_process.hpp"
#include "agentry/plugin_common/json_fields.hpp"
#include "agentry/plugin_common/side_question.hpp"
#include "config.hpp"
#include "child_spec.hpp"

namespace agentry::claude {
namespace json = boost::json;
using plugin_common::object_field;
using plugin_common::text_field;

namespace {

constexpr std::size_t kMaxOutput = 4 * 1024 * 1024;
constexpr std::size_t kMaxErrorText = 2000;

std::optional<json::object> parse_object(const std::string& text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.get_object());
}

// --output-format json: one object, {"type": "result", "is_error", "result", "usage"}.
std::string answer_json(const std::string& out, const std::string& err) {
  // --output-format json: one object, {"type": "result", "is_error", "result", "usage"}.
  auto result = parse_object(out);
  if (!result || text_field(&*result, "type") != "result") {
    std::string why = err.empty() ? out : err;
    if (why.size() > kMaxErrorText) why.resize(kMaxErrorText);
    return json::serialize(json::object{{"error", "claude gave no result: " + why}});
  }
  const json::value* is_error = result->if_contains("is_error");
  const std::string text = text_field(&*result, "result");
  if ((is_error && is_error->is_bool() && is_error->get_bool()) || text.empty())
    return json::serialize(
        json::object{{"error", "claude could not answer: " + (text.empty() ? text_field(&*result, "subtype") : text)}});
  json::object answer{{"answer", text}};
  if (const json::object* usage = object_field(&*result, "usage")) {
    json::object u;
    if (const json::value* v = usage->if_contains("input_tokens"); v && v->is_number()) u["inputTokens"] = *v;
    if (const json::value* v = usage->if_contains("output_tokens"); v && v->is_number()) u["outputTokens"] = *v;
    if (!u.empty()) answer["usage"] = std::move(u);
  }
  return json::serialize(answer);
}

}  // namespace

std::optional<LaunchSpec> Question::launch_for(const std::string& request_json, std::string& why) {
  auto params = plugin_common::side_question_params(request_json, why);
  if (!params) return std::nullopt;
  ParsedLaunch launch = parse_ask_launch(*params);
  if (!launch.launch) why = launch.error;
  return launch.launch;
}

std::shared_ptr<Question> Question::start(plugin::Host& host, plugin_common::runtime::Executor& executor,
                                          std::string ask_id, LaunchSpec launch) {
  std::shared_ptr<Question> question(new Question(host, std::move(ask_id), std::move(launch)));
  executor.post([question, &executor] { question->begin(executor); });
  return question;
}

void Question::begin(plugin_common::runtime::Executor& executor) {
  try {
    // The prompt on stdin, then its output until it ends; the host's deadline ends it early.
    child_ = plugin_common::runtime::collect(
        executor.get_executor(), claude_child(launch_, kMaxOutput), launch_.prompt, kMaxOutput,
        [weak = weak_from_this()](plugin_common::runtime::Collected collected) {
          if (auto self = weak.lock()) self->answer(answer_json(collected.out, collected.err));
        });
  } catch (const std::system_error& e) {
    answer(json::serialize(json::object{{"error", "claude: cannot start: " + e.code().message()}}));
  } catch (const std::exception& e) {
    answer(json::serialize(json::object{{"error", std::string("claude: ") + e.what()}}));
  }
}

void Question::answer(const std::string& answer_json) noexcept {
  if (plugin::answer_ask(host_, ask_id_, answer_json) != AGENTRY_OK)
    host_.log(AGENTRY_LOG_WARNING, "claude: the host refused the answer to " + ask_id_);
}

void Question::abandon() noexcept {
  if (!child_) return;
  child_->forget_handlers();
  child_->kill();
}

}  // namespace agentry::claude
