#include "codex_instance.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>

#include "support/codex_app_server.hpp"

namespace agentry::test {

namespace json = boost::json;

namespace {

const agentry_backend_factory_t* codex_factory() {
  static const agentry_backend_factory_t* factory = load_backend_factory("AGENTRY_CODEX_PLUGIN");
  return factory;
}

}  // namespace

CodexInstance::CodexInstance() {
  const agentry_backend_factory_t* factory = codex_factory();
  if (factory == nullptr) return;
  backend_ = factory->create_backend(factory, host_.table(), "codex");
  EXPECT_NE(backend_, nullptr);
  if (backend_ != nullptr) {
    EXPECT_EQ(backend_->init(backend_), AGENTRY_OK);
  }
}

CodexInstance::~CodexInstance() {
  destroy();
  if (::testing::Test::HasFailure())  // the plugin's log (codex's stderr among it) explains most failures
    for (const std::string& line : host_.logs()) std::cerr << "[plugin log] " << line << "\n";
  const auto violations = host_.violations();
  EXPECT_TRUE(violations.empty()) << violations.front();
}

agentry_status_t CodexInstance::start(const CodexStart& start) { return begin(start, false); }

agentry_status_t CodexInstance::adopt(const CodexStart& start) { return begin(start, true); }

const agentry_backend_detach_t* CodexInstance::detach_table() const {
  if (backend_ == nullptr || backend_->get_extension == nullptr) return nullptr;
  return static_cast<const agentry_backend_detach_t*>(backend_->get_extension(backend_, AGENTRY_EXT_DETACH));
}

agentry_status_t CodexInstance::detach(const char* reason) {
  const agentry_backend_detach_t* table = detach_table();
  return table != nullptr ? table->detach(backend_, reason) : AGENTRY_ERR_UNSUPPORTED;
}

agentry_status_t CodexInstance::begin(const CodexStart& start, bool adopt) {
  if (backend_ == nullptr) return AGENTRY_ERR_INTERNAL;
  const std::string workspace = workspace_.path().string();
  json::object input_object{{"prompt", start.prompt}};
  if (adopt) input_object["checkpoint"] = start.checkpoint;
  const std::string input = json::serialize(input_object);
  const std::string config = json::serialize(json::object{{"backendConfig", start.backend},
                                                          {"model", ""},
                                                          {"effort", ""},
                                                          {"timeoutSec", start.timeout_sec},
                                                          {"unrestricted", start.unrestricted},
                                                          {"extraArgs", json::array()},
                                                          {"launcher", start.launcher}});
  const std::vector<std::string> env_entries = {"AGENTRY_RUN_ID=run-1", kMockKeyEnv};
  std::vector<const char*> env;
  for (const std::string& entry : env_entries) env.push_back(entry.c_str());
  env.push_back(nullptr);
  agentry_start_params_t params{};
  params.struct_size = sizeof params;
  params.run_id = "run-1";
  params.session_id = "run-1/s0";
  params.attempt_number = 1;
  params.workspace_path = workspace.c_str();
  params.input_json = input.c_str();
  params.input_size = input.size();
  params.config_json = config.c_str();
  params.config_size = config.size();
  if (!start.resume_token.empty()) {
    params.resume_token = start.resume_token.c_str();
    params.resume_token_size = start.resume_token.size();
  }
  params.env = env.data();
  host_.begin_attempt();
  finished_before_ = host_.finished_count();
  if (!adopt) return backend_->start(backend_, &params);
  const agentry_backend_detach_t* table = detach_table();
  return table != nullptr ? table->adopt(backend_, &params) : AGENTRY_ERR_UNSUPPORTED;
}

agentry_status_t CodexInstance::interrupt(const char* reason) { return backend_->interrupt(backend_, reason); }

agentry_status_t CodexInstance::send_input(uint32_t kind, const std::string& payload_json) {
  agentry_input_t input{};
  input.struct_size = sizeof input;
  input.input_id = "input-1";
  input.kind = kind;
  input.payload_json = payload_json.c_str();
  input.payload_size = payload_json.size();
  return backend_->send_input(backend_, &input);
}

void CodexInstance::destroy() {
  if (backend_ != nullptr) backend_->destroy(backend_);
  backend_ = nullptr;
}

json::object CodexInstance::wait_finished(std::chrono::seconds limit) {
  const bool done = host_.wait_until(
      [&](const std::vector<RecordedEvent>& events) {
        int count = 0;
        for (const RecordedEvent& e : events) count += e.type == AGENTRY_EVENT_FINISHED;
        return count > finished_before_;
      },
      limit);
  EXPECT_TRUE(done) << "no FINISHED event within " << limit.count() << " s";
  const std::vector<RecordedEvent> events = host_.events();
  for (auto it = events.rbegin(); it != events.rend(); ++it)
    if (it->type == AGENTRY_EVENT_FINISHED) return it->payload;
  return {};
}

json::object CodexInstance::wait_for(uint16_t type, std::chrono::seconds limit) {
  json::object found;
  host_.wait_until(
      [&](const std::vector<RecordedEvent>& events) {
        for (const RecordedEvent& e : events)
          if (e.type == type) {
            found = e.payload;
            return true;
          }
        return false;
      },
      limit);
  return found;
}

std::vector<RecordedEvent> CodexInstance::events_of(uint16_t type) const {
  std::vector<RecordedEvent> out;
  for (RecordedEvent& e : host_.events())
    if (e.type == type) out.push_back(std::move(e));
  return out;
}

}  // namespace agentry::test
