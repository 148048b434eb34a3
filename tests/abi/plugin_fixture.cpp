#include "abi/plugin_fixture.hpp"

#include <dlfcn.h>

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <cstdio>
#include <cstdlib>

namespace agentry::abi_test {

std::string fake_plugin_path(const std::string& variant) {
  const char* dir = std::getenv("AGENTRY_ABI_FAKES_DIR");
  return dir ? std::string(dir) + "/fake_" + variant + ".so" : std::string();
}

std::string mock_plugin_path() {
  const char* path = std::getenv("AGENTRY_MOCK_PLUGIN");
  return path ? path : "";
}

std::vector<std::string> exported_symbols(const std::string& path) {
  std::vector<std::string> names;
  const std::string command = "nm -D --defined-only '" + path + "' 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return names;
  char line[1024];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    std::string s(line);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    // "<address> <type> <name>"
    const auto last_space = s.rfind(' ');
    if (last_space != std::string::npos) names.push_back(s.substr(last_space + 1));
  }
  ::pclose(pipe);
  return names;
}

Library::Library(const std::string& path) {
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) error_ = ::dlerror();
}

Library::~Library() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

void* Library::symbol(const char* name) const { return handle_ ? ::dlsym(handle_, name) : nullptr; }

const agentry_plugin_entry_t* Library::entry() const {
  return static_cast<const agentry_plugin_entry_t*>(symbol(AGENTRY_PLUGIN_ENTRY_SYMBOL));
}

InitializedPlugin::InitializedPlugin(const std::string& path) : library_(path) {
  const agentry_plugin_entry_t* entry = library_.entry();
  if (entry == nullptr || !agentry_version_is_compatible(entry->abi_version) || !entry->init(path.c_str())) return;
  entry_ = entry;
  factory_ = static_cast<const agentry_backend_factory_t*>(entry->get_factory(AGENTRY_BACKEND_FACTORY_ID));
}

InitializedPlugin::~InitializedPlugin() {
  if (entry_ != nullptr) entry_->deinit();
}

Instance::Instance(const InitializedPlugin& plugin, const char* backend_id) {
  if (plugin.ok()) backend_ = plugin.factory()->create_backend(plugin.factory(), host.table(), backend_id);
}

Instance::~Instance() { destroy(); }

agentry_status_t Instance::init() { return backend_->init(backend_); }

agentry_status_t Instance::start(const StartOptions& o) {
  const std::string input = boost::json::serialize(boost::json::object{{"prompt", o.prompt}});
  std::vector<const char*> env;
  for (const auto& e : o.env) env.push_back(e.c_str());
  env.push_back(nullptr);
  agentry_start_params_t p{};
  p.struct_size = sizeof p;
  p.run_id = "run-1";
  p.session_id = o.session_id.c_str();
  p.session_index = o.resume_token.empty() ? 0 : 1;
  p.attempt_number = o.attempt;
  p.workspace_path = o.workspace.c_str();
  p.input_json = input.c_str();
  p.input_size = input.size();
  p.config_json = o.config_json.c_str();
  p.config_size = o.config_json.size();
  p.resume_token = o.resume_token.empty() ? nullptr : o.resume_token.c_str();
  p.resume_token_size = o.resume_token.size();
  p.env = env.data();
  host.begin_attempt();
  return backend_->start(backend_, &p);
}

agentry_status_t Instance::send(uint32_t kind, const std::string& payload_json) {
  const agentry_input_t input{sizeof(agentry_input_t), "input-1", kind, payload_json.c_str(), payload_json.size()};
  return backend_->send_input(backend_, &input);
}

agentry_status_t Instance::interrupt(const char* reason) { return backend_->interrupt(backend_, reason); }

void Instance::destroy() {
  if (backend_ != nullptr) backend_->destroy(backend_);
  backend_ = nullptr;
}

}  // namespace agentry::abi_test
