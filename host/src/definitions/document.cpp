#include "definitions/document.hpp"

#include "core/utf8.hpp"
#include "definitions/front_matter.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <system_error>

namespace agentry::definitions {
namespace {

std::optional<std::string> read_file(const std::filesystem::path& file, Diagnostics& diag) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) {
    diag.error("", "cannot read the file: " + ec.message());
    return std::nullopt;
  }
  if (size > max_definition_file_bytes) {
    diag.error("", "the file is " + std::to_string(size) + " bytes; definition files are limited to " +
                       std::to_string(max_definition_file_bytes));
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    diag.error("", "cannot open the file");
    return std::nullopt;
  }
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Definitions end up in JSON (run records, API answers), which must be UTF-8. A file
/// saved in another encoding still loads: each bad byte becomes U+FFFD, and the user is
/// told where.
void make_utf8(std::string& text, Diagnostics& diag) {
  auto bad = core::first_invalid_utf8(text);
  if (!bad) return;
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(*bad), '\n');
  diag.warn("", "line " + std::to_string(line) +
                    ": the file is not valid UTF-8; the bytes that are not were replaced with U+FFFD (save it as UTF-8)");
  text = core::sanitize_utf8(text);
}

}  // namespace

std::optional<Document> read_document(const std::filesystem::path& file, DocumentFormat format,
                                      const EnvLookup& env, Diagnostics& diag, const EnvAllow& allow) {
  auto text = read_file(file, diag);
  if (!text) return std::nullopt;
  make_utf8(*text, diag);

  Document document;
  std::string yaml;
  int first_line = 1;
  if (format == DocumentFormat::markdown) {
    auto split = split_front_matter(*text);
    if (!split) {
      diag.error("", split.error().message);
      return std::nullopt;
    }
    yaml = std::move(split->yaml);
    document.body = std::move(split->body);
    first_line = split->yaml_first_line;
  } else {
    yaml = std::move(*text);
  }

  auto fields = parse_yaml(yaml, first_line, env, diag, allow);
  if (!fields) return std::nullopt;
  if (fields->is_null()) {
    diag.error("", format == DocumentFormat::markdown
                       ? "the front matter is empty; it needs at least 'schemaVersion: 1'"
                       : "the file is empty; it needs at least 'schemaVersion: 1'");
    return std::nullopt;
  }
  if (!fields->is_map()) {
    diag.error("", "must be a YAML map of fields (key: value), not " +
                       std::string(describe_kind(*fields)));
    return std::nullopt;
  }
  document.fields = std::move(*fields);
  return document;
}

std::optional<std::string> definition_name(FieldReader& reader, const Location& location) {
  const auto declared = reader.string("name");
  if (location.name) {
    if (declared && *declared != *location.name) {
      reader.diag().warn("name", "is '" + *declared + "' but the file's location names it '" +
                                     *location.name + "'; the definition is skipped until they match");
      return std::nullopt;
    }
    return location.name;
  }
  if (declared && !declared->empty()) {
    // Agents and assignments share the naming rule; a name must be loadable by name.
    if (!is_valid_name(Kind::agent, *declared)) {
      reader.diag().error("name", "'" + *declared + "' is not a valid name: use letters, digits, '.', '_' and '-'");
      return std::nullopt;
    }
    return declared;
  }
  return location.file.stem().string();
}

}  // namespace agentry::definitions
