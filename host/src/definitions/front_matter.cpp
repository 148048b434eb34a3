#include "definitions/front_matter.hpp"

namespace agentry::definitions {
namespace {

/// A line without its newline, a trailing '\r' and trailing blanks: editors differ.
std::string_view trimmed_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
    line.remove_suffix(1);
  }
  return line;
}

std::string trim_body(std::string_view body) {
  // Drop whole blank lines at the start (keep the indentation of the first text line).
  std::size_t start = 0;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c == '\n') {
      start = i + 1;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      break;
    }
  }
  if (start > body.size()) start = body.size();
  std::size_t end = body.size();
  while (end > start && (body[end - 1] == '\n' || body[end - 1] == '\r' ||
                         body[end - 1] == ' ' || body[end - 1] == '\t')) {
    --end;
  }
  return std::string(body.substr(start, end - start));
}

}  // namespace

core::Result<FrontMatter> split_front_matter(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte order mark

  std::size_t first_end = text.find('\n');
  const std::string_view first =
      trimmed_line(text.substr(0, first_end == std::string_view::npos ? text.size() : first_end));
  if (first != "---") {
    return core::fail(core::ErrorCode::validation,
                      "the file must start with a '---' line opening the YAML front matter");
  }
  if (first_end == std::string_view::npos) first_end = text.size();

  std::size_t line_start = first_end + 1;
  while (line_start <= text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    const std::string_view line = trimmed_line(text.substr(line_start, line_end - line_start));
    if (line == "---" || line == "...") {
      FrontMatter out;
      out.yaml = std::string(text.substr(first_end + 1, line_start - (first_end + 1)));
      out.body = line_end < text.size() ? trim_body(text.substr(line_end + 1)) : std::string();
      out.yaml_first_line = 2;
      return out;
    }
    line_start = line_end + 1;
  }
  return core::fail(core::ErrorCode::validation,
                    "the front matter opened on line 1 is never closed; add a '---' line after it");
}

}  // namespace agentry::definitions
