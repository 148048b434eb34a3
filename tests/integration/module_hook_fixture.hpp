#pragma once
// The fixture of the module hook tests: a real daemon whose agent `scripted` plays its
// prompt's "@mock" lines, and hook modules written into its config directory. Module
// hooks run with node: without it the tests skip, saying so (CI has Node 20).
#include "daemon_fixture.hpp"

#include <cstdlib>
#include <string>

namespace agentry::integration {

/// Whether `node` runs here.
inline bool have_node() { return std::system("node --version > /dev/null 2>&1") == 0; }

class ModuleHookTest : public DaemonTest {
 protected:
  void SetUp() override {
    if (!have_node()) GTEST_SKIP() << "node is not on PATH; module hooks need it";
    DaemonTest::SetUp();
    write_agent("scripted", "mock", "{}");  // plays the prompt's "@mock" lines
  }
  /// Writes config/hooks/<name>/hook.mjs.
  void write_module(const std::string& name, const std::string& source) {
    dir_.write_file("config/hooks/" + name + "/hook.mjs", source);
  }
};

}  // namespace agentry::integration
