#pragma once
// Run-time templating of instructions, messages and task text:
//   {{key}} or {{ key }}  the context value (strings as they are, numbers and booleans
//                         as JSON text, null as nothing)
//   \{{                   a literal "{{"
// A key the context does not have is left as written and reported, so that text such
// as `${{ secrets.TOKEN }}` survives and a typo is still seen (agent-runner leaves
// unknown keys as written too). Anything else in braces is plain text.

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace agentry::definitions {

struct RenderedText {
  std::string text;
  /// Keys the context lacks, each once, in order of first use; their placeholders are
  /// in `text` exactly as written.
  std::vector<std::string> unknown_keys;
};

/// Keys are letters, digits, '_', '-' and '.', optionally surrounded by blanks. "{{"
/// without a valid key and a closing "}}" is not a placeholder and stays as it is.
RenderedText render_template(std::string_view text, const boost::json::object& context);

/// Every key the text's placeholders name, each once, in order of first use.
std::vector<std::string> template_keys(std::string_view text);

/// The keys agentry provides to every template besides the assignment's vars:
/// run_id, run_group_id, cwd, config_dir, state_dir, assignment_name.
const std::vector<std::string>& builtin_template_keys();

/// "unknown template key 'x' is left as written ..." for a warning about `keys`, listing
/// `available` (sorted) so that a typo can be spotted.
std::string describe_unknown_keys(const std::vector<std::string>& keys, std::vector<std::string> available);

}  // namespace agentry::definitions
