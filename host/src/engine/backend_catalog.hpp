#pragma once
// Which backends can run agents in this process. The built-in passive backend is
// always present; loadable plugins join it when the plugin loader lands.

#include <string>
#include <vector>

namespace agentry::engine {

class BackendCatalog {
 public:
  virtual ~BackendCatalog() = default;
  virtual bool has(const std::string& name) const = 0;
  virtual std::vector<std::string> names() const = 0;
};

/// Only the passive backend.
class BuiltinBackends final : public BackendCatalog {
 public:
  bool has(const std::string& name) const override;
  std::vector<std::string> names() const override;
};

}  // namespace agentry::engine
