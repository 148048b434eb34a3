#include "mock/mock_backend.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace agentry::mock {
namespace json = boost::json;

namespace {
// The string member `key` of the JSON object `payload`, or nullopt.
std::optional<std::string> string_member(const std::string& payload, std::string_view key) {
  json::error_code ec;
  const json::value v = json::parse(payload, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const json::value* m = v.get_object().if_contains(key);
  if (m == nullptr || !m->is_string()) return std::nullopt;
  return std::string(m->get_string());
}
}  // namespace

MockBackend::~MockBackend() {
  // Nothing of this instance runs after destroy returns (obligation 10): the script ends
  // "interrupted" with its FINISHED, a question goes unanswered, then the executor stops.
  if (attempt_) {
    attempt_->interrupt("the backend instance is being destroyed");
    attempt_->wait_finished();
  }
  executor_.stop_after([this] {
    if (question_) question_->abandon();
  });
}

agentry_status_t MockBackend::ask(std::string ask_id, std::string request_json) {
  if (attempt_ || question_) return AGENTRY_ERR_INVALID_STATE;  // the host asks a fresh instance, once
  if (const agentry_status_t st = Question::check(request_json); st != AGENTRY_OK) return st;
  question_ = Question::start(host(), executor_, std::move(ask_id), std::move(request_json));
  return AGENTRY_OK;
}

agentry_status_t MockBackend::start(const plugin::StartParams& params) {
  if (attempt_ && !attempt_->finishing()) return AGENTRY_ERR_INVALID_STATE;
  // Parsing here, on the control context, is cheap; a bad script still starts an
  // attempt, which reports the mistake in its NOTICE and FINISHED error.
  Script script = parse_script(params.config_json, params.input_json);
  attempt_ = Attempt::start(host(), executor_, params, std::move(script));
  return AGENTRY_OK;
}

agentry_status_t MockBackend::send_input(const plugin::Input& input) {
  if (!attempt_ || attempt_->finishing()) return AGENTRY_ERR_INVALID_STATE;
  if (input.kind == AGENTRY_INPUT_MESSAGE) {
    auto text = string_member(input.payload_json, "text");
    if (!text) return AGENTRY_ERR_INVALID_ARGUMENT;
    attempt_->give_message(std::move(*text));
    return AGENTRY_OK;
  }
  if (input.kind == AGENTRY_INPUT_APPROVAL) {
    const auto id = string_member(input.payload_json, "approvalId");
    const auto decision = string_member(input.payload_json, "decision");
    if (!id || !decision || (*decision != "approve" && *decision != "deny")) return AGENTRY_ERR_INVALID_ARGUMENT;
    return attempt_->give_decision(*id, *decision == "approve");
  }
  return AGENTRY_ERR_UNSUPPORTED;
}

agentry_status_t MockBackend::interrupt(std::string_view reason) {
  // Idempotent, and harmless after the attempt finished (the host may race us there).
  if (attempt_) attempt_->interrupt(reason);
  return AGENTRY_OK;
}

namespace {
constexpr const char* kFeatures[] = {AGENTRY_FEATURE_RESUME,    AGENTRY_FEATURE_INTERRUPT, AGENTRY_FEATURE_INPUT,
                                     AGENTRY_FEATURE_APPROVALS, AGENTRY_FEATURE_ASK,       nullptr};
}  // namespace

const agentry_backend_descriptor_t kMockDescriptor{
    AGENTRY_PLUGIN_ABI_VERSION_INIT,
    "mock",
    "Mock (scripted)",
    "agentry",
    "0.1.0",
    "A deterministic scripted agent for tests and benchmarks: plays the steps in "
    "backendConfig.steps or in the prompt's \"@mock {...}\" lines.",
    kFeatures};

}  // namespace agentry::mock
