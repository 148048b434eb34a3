#include "store_copy/copy_text.hpp"

namespace agentry::store_copy {
namespace {

const char* escape_of(char ch) {
  switch (ch) {
    case '\\': return "\\\\";
    case '\t': return "\\t";
    case '\n': return "\\n";
    case '\r': return "\\r";
    default: return nullptr;
  }
}

}  // namespace

void append_copy_field(std::string& row, std::string_view value) {
  // Runs of plain bytes are appended whole: payloads are long and escapes rare.
  std::size_t plain_from = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char* escape = escape_of(value[i]);
    if (escape == nullptr) continue;
    row.append(value.substr(plain_from, i - plain_from));
    row += escape;
    plain_from = i + 1;
  }
  row.append(value.substr(plain_from));
}

}  // namespace agentry::store_copy
