#include "browser/ask.hpp"

#include <agentry/plugin/cpp/ask.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "agentry/plugin_common/environment.hpp"
#include "agentry/plugin_common/json_fields.hpp"
#include "browser/browser_tools.hpp"
#include "browser/model_client.hpp"
#include "browser/settings.hpp"

namespace agentry::browser {
namespace json = boost::json;
using plugin_common::text_field;
using plugin_common::object_field;
using plugin_common::array_field;
namespace rt = plugin_common::runtime;

namespace {

constexpr std::size_t kEntryChars = 400;     // per timeline entry, task note or final message line
constexpr std::size_t kMaxEntries = 60;      // the newest timeline entries kept
constexpr std::size_t kMaxImageBase64 = 8 * 1024 * 1024;

// One line of state: newlines flattened (a state line never reads as something else), cut.
std::string one_line(std::string text, std::size_t max = kEntryChars) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (text.size() > max) {
    text.resize(max);
    text = plugin::sanitize_utf8(text) + "...";
  }
  return text;
}

// The user message: the state of the task in plain text, then the question.
Message question_message(const json::object& request) {
  const json::object* state = object_field(&request, "state");
  std::string text = "The browser task's state";
  if (auto status = text_field(state, "status"); !status.empty()) text += " (status: " + status + ")";
  text += ":\n";
  if (auto reason = text_field(state, "statusReason"); !reason.empty()) text += "Status reason: " + one_line(reason) + "\n";
  if (const json::array* tasks = array_field(state, "tasks"); tasks && !tasks->empty()) {
    text += "\nTasks:\n";
    for (const json::value& t : *tasks) {
      const json::object* o = t.if_object();
      text += "- [" + one_line(text_field(o, "status"), 40) + "] " + one_line(text_field(o, "title"));
      if (auto note = text_field(o, "note"); !note.empty()) text += " (" + one_line(note) + ")";
      text += "\n";
    }
  }
  if (const json::array* timeline = array_field(state, "recentTimeline"); timeline && !timeline->empty()) {
    text += "\nRecent timeline (oldest first):\n";
    const std::size_t skip = timeline->size() > kMaxEntries ? timeline->size() - kMaxEntries : 0;
    for (std::size_t i = skip; i < timeline->size(); ++i) {
      const json::object* o = (*timeline)[i].if_object();
      std::string line = "- " + one_line(text_field(o, "type"), 40);
      if (auto tool = text_field(o, "tool"); !tool.empty()) line += " " + one_line(tool, 40);
      if (auto status = text_field(o, "status"); !status.empty()) line += " (" + one_line(status, 40) + ")";
      if (auto t = text_field(o, "text"); !t.empty()) line += ": " + one_line(t);
      text += line + "\n";
    }
  }
  if (auto final_message = text_field(state, "finalMessage"); !final_message.empty())
    text += "\nFinal message: " + one_line(final_message, 4 * kEntryChars) + "\n";
  Message m{Message::Role::user, {}, {}, {}, false, std::nullopt};
  const json::object* frame = object_field(state, "latestFrame");
  const std::string mime = text_field(frame, "mime"), data = text_field(frame, "data");
  if ((mime == "image/jpeg" || mime == "image/png") && !data.empty() && data.size() <= kMaxImageBase64) {
    m.image = Image{mime, data};
    text += "\nThe latest picture of the page is attached.\n";
  } else {
    text += "\nNo picture of the page is available.\n";
  }
  text += "\nQuestion:\n" + text_field(&request, "question");
  m.text = std::move(text);
  return m;
}

}  // namespace

agentry_status_t Asker::ask(std::string ask_id, const std::string& request_json) {
  if (asked_) return AGENTRY_ERR_INVALID_STATE;  // one question per instance
  json::error_code ec;
  json::value request = json::parse(request_json, ec);
  if (ec || !request.is_object() || !request.get_object().if_contains("question") ||
      !request.get_object().at("question").is_string())
    return AGENTRY_ERR_INVALID_ARGUMENT;
  // "config" is the backendConfig a start() would get; a whole start config is accepted too.
  const json::object* config = object_field(&request.get_object(), "config");
  json::object backend_config;
  std::string fallback_model;
  if (config) {
    const json::object* inner = object_field(config, "backendConfig");
    backend_config = inner ? *inner : *config;
    if (inner) fallback_model = text_field(config, "model");
  }
  const json::value* section = config_field(backend_config, "model");
  if (!section) return AGENTRY_ERR_UNSUPPORTED;  // no model: nobody to ask
  asked_ = true;
  executor_.post([self = shared_from_this(), id = std::move(ask_id), request = std::move(request.get_object()),
                  section = *section, fallback_model] {
    self->ask_id_ = id;
    self->answered_ = false;
    try {
      std::string why;
      auto settings = read_model_settings(section, plugin_common::EnvironmentBuilder::inherited().take(), fallback_model, why);
      if (!settings) return self->answer(json::serialize(json::object{{"error", "browser model: " + why}}));
      const Conversation conversation{question_message(request)};
      rt::HttpRequest call = model_request(*settings, ask_system_prompt(), conversation, {});
      self->call_ = rt::http_post(self->executor_.get_executor(), call,
                                  [self, settings = *settings, call](rt::HttpResponse response) {
                                    const ModelReply reply = model_reply(settings, call, std::move(response));
                                    json::object answer;
                                    if (reply.cancelled) answer["error"] = "the question was abandoned";
                                    else if (!reply.error.empty()) answer["error"] = reply.error;
                                    else if (reply.text.empty()) answer["error"] = "the model gave no answer";
                                    else {
                                      answer["answer"] = reply.text;
                                      if (!reply.usage.empty()) answer["usage"] = reply.usage.to_event();
                                    }
                                    self->answer(json::serialize(answer));
                                  });
    } catch (const std::exception& e) {
      self->answer(json::serialize(json::object{{"error", std::string("internal error in the browser backend: ") + e.what()}}));
    }
  });
  return AGENTRY_OK;
}

void Asker::abandon() noexcept {
  if (answered_) return;
  if (call_) call_->cancel();
  answer(R"({"error":"the question was abandoned"})");
}

void Asker::answer(const std::string& payload) noexcept {
  if (answered_) return;
  answered_ = true;
  call_.reset();
  try {
    const agentry_status_t st = plugin::answer_ask(host_, ask_id_, payload);
    if (st != AGENTRY_OK)
      host_.log(AGENTRY_LOG_WARNING, "browser: the answer to ask " + ask_id_ + " was refused: " + std::to_string(st));
  } catch (...) {
  }
}

}  // namespace agentry::browser
