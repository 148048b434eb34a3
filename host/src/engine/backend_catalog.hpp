#pragma once
// Which backends can run agents in this process: the built-in passive backend and
// every backend the plugin registry loaded.

#include <string>
#include <vector>

namespace agentry::plugins {
class PluginRegistry;
}

namespace agentry::engine {

class BackendCatalog {
 public:
  explicit BackendCatalog(const plugins::PluginRegistry& registry) : registry_(registry) {}
  bool has(const std::string& name) const;
  std::vector<std::string> names() const;
  const plugins::PluginRegistry& registry() const { return registry_; }

 private:
  const plugins::PluginRegistry& registry_;
};

}  // namespace agentry::engine
