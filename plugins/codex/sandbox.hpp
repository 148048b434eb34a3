// Codex's Linux sandbox (bubblewrap) seen from the plugin: the helper links codex does not
// make for itself when its CODEX_HOME is in the temp dir, and the words for a tool call the
// sandbox kept from running. Why both are needed: docs/backends/codex.md, "The Linux sandbox".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::codex {

// The temp dir a child with environment `env` sees (as Rust's std::env::temp_dir):
// $TMPDIR, else /tmp.
std::string temp_dir_of(const std::vector<std::string>& env);

// The CODEX_HOME codex uses with environment `env`: $CODEX_HOME, else $HOME/.codex;
// "" when neither is set.
std::string codex_home_of(const std::vector<std::string>& env);

// True when codex started with `env` makes no helper links (codex-linux-sandbox,
// apply_patch) on its PATH: it refuses to when its CODEX_HOME lies inside the temp dir.
// A system bubblewrap older than 0.9 (no --argv0) then cannot start the sandbox helper,
// and every sandboxed command fails with "bwrap: execvp codex-linux-sandbox: No such file
// or directory".
bool codex_makes_no_helper_links(const std::vector<std::string>& env);

// A private directory (mode 0700, made with mkdtemp in `temp_dir`) holding the links codex
// would have made, each to `codex_binary` (an absolute path); removed with the object.
class HelperLinks {
 public:
  // Throws std::runtime_error saying what failed.
  HelperLinks(const std::string& codex_binary, const std::string& temp_dir);
  ~HelperLinks();
  HelperLinks(const HelperLinks&) = delete;
  HelperLinks& operator=(const HelperLinks&) = delete;

  const std::string& dir() const noexcept { return dir_; }

 private:
  std::string dir_;
};

// `env` with `dir` in front of its PATH.
std::vector<std::string> with_path_prefix(std::vector<std::string> env, const std::string& dir);

// For a tool call that failed with this output: when the output is bubblewrap's own error
// (the sandbox did not start, so the command never ran), what to tell the user, naming the
// cause and what to do; nullopt for any other output.
std::optional<std::string> sandbox_failure_message(std::string_view output);

}  // namespace agentry::codex
