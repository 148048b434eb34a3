#include "store_import/agent_runner/read_errors.hpp"

#include <fstream>
#include <sstream>

namespace agentry::store_import::agent_runner {
namespace fs = std::filesystem;

core::Result<std::string> read_text_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return core::fail(core::ErrorCode::not_found, file.string() + ": cannot be read", {{"file", file.string()}, {"field", ""}});
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace agentry::store_import::agent_runner
