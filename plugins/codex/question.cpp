#include "question.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "agentry/plugin/cpp/ask.hpp"
#include "agentry/plugin_common/json_fields.hpp"
#include "agentry/plugin_common/side_question.hpp"
#include "session.hpp"

namespace agentry::codex {
namespace json = boost::json;
using plugin_common::text_field;

std::optional<AttemptConfig> Question::config_for(const std::string& request_json, std::string& why) {
  std::optional<plugin::StartParams> params = plugin_common::side_question_params(request_json, why);
  if (!params) return std::nullopt;
  ParsedConfig out = parse_config(*params, AttemptMode::start);
  if (!out.config) return why = out.error, std::nullopt;
  // A side conversation: it may read, never write, and nobody is there to approve.
  out.config->fork = out.config->resume_thread_id.has_value();
  out.config->approval_policy = "never";
  out.config->sandbox = "read-only";
  out.config->unrestricted = false;
  return out.config;
}

Question::Question(const agentry_host_t* host, plugin_common::runtime::Executor& executor, std::string ask_id,
                   AttemptConfig config)
    : real_(host), ask_id_(std::move(ask_id)), host_(&table_) {
  table_.abi_version = host->abi_version;
  table_.host_data = this;
  table_.name = host->name;
  table_.version = host->version;
  table_.emit = &Question::emit;
  table_.log = &Question::log;
  table_.request_callback = &Question::request_callback;
  table_.get_extension = &Question::get_extension;
  session_ = Session::start(host_, executor, std::move(config));
}

// The session may outlive this object in a handler the stopped executor still holds, but
// it runs no more: abandon() came first (CodexBackend's teardown).
Question::~Question() = default;

void Question::abandon() noexcept { session_->abandon(); }

agentry_status_t Question::emit(const agentry_host_t* table, const agentry_event_t* event) noexcept {
  try {
    auto* self = static_cast<Question*>(table->host_data);
    self->on_event(event->type, std::string(event->payload_json, static_cast<std::size_t>(event->payload_size)));
  } catch (...) {
  }
  return AGENTRY_OK;
}

void Question::log(const agentry_host_t* table, int32_t severity, const char* message) noexcept {
  const agentry_host_t* real = static_cast<Question*>(table->host_data)->real_;
  real->log(real, severity, message);
}

const void* Question::get_extension(const agentry_host_t* table, const char* id) noexcept {
  const agentry_host_t* real = static_cast<Question*>(table->host_data)->real_;
  return real->get_extension ? real->get_extension(real, id) : nullptr;
}

// The fork's turn, as events: its last message is the answer once FINISHED arrives.
void Question::on_event(uint16_t type, const std::string& payload) {
  boost::system::error_code ec;
  json::value v = json::parse(payload, ec);
  if (ec || !v.is_object()) return;
  const json::object& o = v.get_object();
  if (type == AGENTRY_EVENT_MESSAGE_COMPLETED) last_message_ = text_field(&o, "text");
  if (type == AGENTRY_EVENT_USAGE) usage_json_ = payload;
  if (type != AGENTRY_EVENT_FINISHED || answered_) return;
  answered_ = true;
  json::object reply;
  if (text_field(&o, "outcome") == "success" && !last_message_.empty()) {
    reply["answer"] = last_message_;
    if (!usage_json_.empty()) {
      json::value usage = json::parse(usage_json_, ec);
      if (!ec && usage.is_object()) reply["usage"] = usage;
    }
  } else {
    const std::string why = text_field(&o, "message");
    reply["error"] = "codex could not answer: " + (why.empty() ? "its turn ended " + text_field(&o, "outcome") : why);
  }
  const std::string answer = json::serialize(reply);
  plugin::Host real(real_);
  if (plugin::answer_ask(real, ask_id_, answer) != AGENTRY_OK)
    real.log(AGENTRY_LOG_WARNING, "codex: the host refused the answer to " + ask_id_);
}

}  // namespace agentry::codex
