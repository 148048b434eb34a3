#include "plugin_instance.hpp"

#include <cstdlib>

#include <dlfcn.h>
#include <gtest/gtest.h>

namespace agentry::test {

namespace json = boost::json;

const agentry_backend_factory_t* subprocess_factory() {
  static const agentry_backend_factory_t* factory = load_backend_factory("AGENTRY_SUBPROCESS_PLUGIN");
  return factory;
}

json::array strings(std::initializer_list<std::string_view> items) {
  json::array out;
  for (std::string_view item : items) out.emplace_back(item);
  return out;
}

std::string config_json(json::object backend, json::object extra) {
  extra["backendConfig"] = std::move(backend);
  return json::serialize(extra);
}

json::object shell(std::string_view script, json::object fields) {
  fields["command"] = strings({"/bin/sh", "-c", script});
  return fields;
}

StartOptions with_prompt(std::string prompt) {
  StartOptions options;
  options.prompt = std::move(prompt);
  return options;
}

StartOptions with_workspace(std::string workspace) {
  StartOptions options;
  options.workspace = std::move(workspace);
  return options;
}

StartOptions with_resume_token(std::string token) {
  StartOptions options;
  options.resume_token = std::move(token);
  return options;
}

SubprocessInstance::SubprocessInstance() : SubprocessInstance(subprocess_factory(), "subprocess") {}

SubprocessInstance::SubprocessInstance(const agentry_backend_factory_t* factory, const char* id) {
  if (factory == nullptr) return;
  backend_ = factory->create_backend(factory, host_.table(), id);
  EXPECT_NE(backend_, nullptr);
  if (backend_ != nullptr) {
    EXPECT_EQ(backend_->init(backend_), AGENTRY_OK);
  }
}

SubprocessInstance::~SubprocessInstance() {
  destroy();
  EXPECT_TRUE(host_.violations().empty()) << host_.violations().front();
}

agentry_status_t SubprocessInstance::start(const std::string& config, const StartOptions& options) {
  if (backend_ == nullptr) return AGENTRY_ERR_INTERNAL;
  const std::string workspace = options.workspace.empty() ? workspace_.path().string() : options.workspace;
  const std::string input = json::serialize(json::object{{"prompt", options.prompt}});
  std::vector<const char*> env;
  for (const std::string& entry : options.env) env.push_back(entry.c_str());
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
  if (!options.resume_token.empty()) {
    params.resume_token = options.resume_token.c_str();
    params.resume_token_size = options.resume_token.size();
  }
  params.env = env.data();
  host_.begin_attempt();
  finished_before_ = host_.finished_count();
  return backend_->start(backend_, &params);
}

agentry_status_t SubprocessInstance::interrupt(const char* reason) { return backend_->interrupt(backend_, reason); }

agentry_status_t SubprocessInstance::send_input(uint32_t kind, const std::string& payload_json) {
  agentry_input_t input{};
  input.struct_size = sizeof input;
  input.input_id = "input-1";
  input.kind = kind;
  input.payload_json = payload_json.c_str();
  input.payload_size = payload_json.size();
  return backend_->send_input(backend_, &input);
}

void SubprocessInstance::destroy() {
  if (backend_ != nullptr) backend_->destroy(backend_);
  backend_ = nullptr;
}

json::object SubprocessInstance::wait_finished(std::chrono::seconds limit) {
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

bool SubprocessInstance::wait_for_text(uint16_t type, std::string_view text, std::chrono::seconds limit) {
  return host_.wait_until(
      [&](const std::vector<RecordedEvent>& events) {
        for (const RecordedEvent& e : events)
          if (e.type == type && json::serialize(e.payload).find(text) != std::string::npos) return true;
        return false;
      },
      limit);
}

std::vector<RecordedEvent> SubprocessInstance::events_of(uint16_t type) const {
  std::vector<RecordedEvent> out;
  for (RecordedEvent& e : host_.events())
    if (e.type == type) out.push_back(std::move(e));
  return out;
}

}  // namespace agentry::test
