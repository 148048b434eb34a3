#pragma once
// Which backends can run agents in this process: the built-in passive backend and
// every backend the plugin registry loaded.

#include <string>
#include <vector>

namespace agentry::plugin_host {
class PluginRegistry;
}

namespace agentry::engine {

class BackendCatalog {
 public:
  explicit BackendCatalog(const plugin_host::PluginRegistry& registry) : registry_(registry) {}
  bool has(const std::string& name) const;
  std::vector<std::string> names() const;
  const plugin_host::PluginRegistry& registry() const { return registry_; }

 private:
  const plugin_host::PluginRegistry& registry_;
};

}  // namespace agentry::engine
