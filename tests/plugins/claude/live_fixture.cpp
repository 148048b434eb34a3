#include "live_fixture.hpp"

#include <cstdlib>

#include <dlfcn.h>
#include <gtest/gtest.h>

namespace agentry::test {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

const agentry_backend_factory_t* claude_factory() {
  static const agentry_backend_factory_t* factory = load_backend_factory("AGENTRY_CLAUDE_PLUGIN");
  return factory;
}

}  // namespace

ClaudeInstance::ClaudeInstance(const fs::path& binary, std::string base_url, const fs::path& home)
    : binary_(binary), base_url_(std::move(base_url)), home_(home) {
  const agentry_backend_factory_t* factory = claude_factory();
  if (factory == nullptr) return;
  backend_ = factory->create_backend(factory, host_.table(), "claude");
  EXPECT_NE(backend_, nullptr);
  if (backend_ != nullptr) {
    EXPECT_EQ(backend_->init(backend_), AGENTRY_OK);
  }
}

ClaudeInstance::~ClaudeInstance() {
  destroy();
  const std::vector<std::string> violations = host_.violations();
  EXPECT_TRUE(violations.empty()) << violations.front();
}

agentry_status_t ClaudeInstance::start(const Turn& turn) {
  if (backend_ == nullptr) return AGENTRY_ERR_INTERNAL;
  json::object backend{{"binary", binary_.string()},
                       {"env", {{"HOME", home_.string()},
                                {"ANTHROPIC_BASE_URL", base_url_},
                                {"ANTHROPIC_API_KEY", "dummy"},
                                {"CLAUDE_CODE_MAX_RETRIES", "0"}}}};
  if (!turn.command.empty()) {
    json::array command;
    for (const std::string& part : turn.command) command.emplace_back(part);
    backend.erase("binary");
    backend["command"] = std::move(command);
  }
  if (turn.interrupt_grace_ms >= 0) backend["interruptGraceMs"] = turn.interrupt_grace_ms;
  const std::string config = json::serialize(json::object{{"backendConfig", std::move(backend)},
                                                           {"model", turn.model},
                                                           {"effort", ""},
                                                           {"timeoutSec", turn.timeout_sec},
                                                           {"unrestricted", turn.unrestricted},
                                                           {"extraArgs", json::array()},
                                                           {"launcher", nullptr}});
  const std::string input = json::serialize(json::object{{"prompt", turn.prompt}});
  const std::string workspace = workspace_.path().string();
  const char* env[] = {"AGENTRY_RUN_ID=run-claude", nullptr};
  agentry_start_params_t params{};
  params.struct_size = sizeof params;
  params.run_id = "run-claude";
  params.session_id = "run-claude/s0";
  params.attempt_number = 1;
  params.workspace_path = workspace.c_str();
  params.input_json = input.c_str();
  params.input_size = input.size();
  params.config_json = config.c_str();
  params.config_size = config.size();
  if (!turn.resume_token.empty()) {
    params.resume_token = turn.resume_token.c_str();
    params.resume_token_size = turn.resume_token.size();
  }
  params.env = env;
  host_.begin_attempt();
  finished_before_ = host_.finished_count();
  return backend_->start(backend_, &params);
}

agentry_status_t ClaudeInstance::interrupt(const char* reason) { return backend_->interrupt(backend_, reason); }

agentry_status_t ClaudeInstance::send_message(std::string_view text) {
  const std::string payload = json::serialize(json::object{{"text", text}});
  agentry_input_t input{};
  input.struct_size = sizeof input;
  input.input_id = "input-message";
  input.kind = AGENTRY_INPUT_MESSAGE;
  input.payload_json = payload.c_str();
  input.payload_size = payload.size();
  return backend_->send_input(backend_, &input);
}

agentry_status_t ClaudeInstance::answer(std::string_view approval_id, std::string_view decision) {
  const std::string payload = json::serialize(json::object{{"approvalId", approval_id}, {"decision", decision}});
  agentry_input_t input{};
  input.struct_size = sizeof input;
  input.input_id = "input-approval";
  input.kind = AGENTRY_INPUT_APPROVAL;
  input.payload_json = payload.c_str();
  input.payload_size = payload.size();
  return backend_->send_input(backend_, &input);
}

void ClaudeInstance::destroy() {
  if (backend_ != nullptr) backend_->destroy(backend_);
  backend_ = nullptr;
}

json::object ClaudeInstance::wait_finished(std::chrono::seconds limit) {
  const bool done = host_.wait_until(
      [&](const std::vector<RecordedEvent>& events) {
        int count = 0;
        for (const RecordedEvent& e : events) count += e.type == AGENTRY_EVENT_FINISHED;
        return count > finished_before_;
      },
      limit);
  EXPECT_TRUE(done) << "no FINISHED within " << limit.count() << " s; events:\n" << dump();
  const std::vector<RecordedEvent> events = host_.events();
  for (auto it = events.rbegin(); it != events.rend(); ++it)
    if (it->type == AGENTRY_EVENT_FINISHED) return it->payload;
  return {};
}

std::optional<RecordedEvent> ClaudeInstance::wait_for(uint16_t type, std::string_view text, std::chrono::seconds limit) {
  std::optional<RecordedEvent> found;
  host_.wait_until(
      [&](const std::vector<RecordedEvent>& events) {
        for (const RecordedEvent& e : events)
          if (e.type == type && json::serialize(e.payload).find(text) != std::string::npos) {
            found = e;
            return true;
          }
        return false;
      },
      limit);
  return found;
}

std::vector<RecordedEvent> ClaudeInstance::events_of(uint16_t type) const {
  std::vector<RecordedEvent> out;
  for (RecordedEvent& e : host_.events())
    if (e.type == type) out.push_back(std::move(e));
  return out;
}

std::string ClaudeInstance::dump() const {
  std::string out;
  for (const RecordedEvent& e : host_.events())
    out += std::to_string(e.seq) + " type " + std::to_string(e.type) + " " + json::serialize(e.payload) + "\n";
  for (const std::string& line : host_.logs()) out += "log " + line + "\n";
  return out;
}

long ClaudeInstance::child_pid() const {
  for (const std::string& line : host_.logs()) {
    const std::size_t at = line.find("claude: started pid ");
    if (at != std::string::npos) return std::stol(line.substr(at + 20));
  }
  return 0;
}

}  // namespace agentry::test
