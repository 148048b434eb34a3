// parse_yaml(): yaml-cpp plus agentry's conversion (duplicate keys, node budget against
// alias bombs, ${...} interpolation of every scalar). Project definitions may come from
// another person's repository, so any text must give a tree or diagnostics, never a
// crash, an escaping exception or unbounded work.

#include "definitions/yaml_node.hpp"

#include "fuzz_check.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace {

using agentry::definitions::YamlNode;

/// Visits the tree the way field readers do, counting nodes.
std::size_t walk(const YamlNode& node) {
  FUZZ_CHECK(node.line >= 0, "line numbers are never negative");
  FUZZ_CHECK(!agentry::definitions::describe_kind(node).empty(), "every node kind has a description");
  std::size_t count = 1;
  switch (node.kind) {
    case YamlNode::Kind::null:
      break;
    case YamlNode::Kind::scalar:
      (void)agentry::definitions::yaml_bool(node.text);
      (void)agentry::definitions::yaml_int(node.text);
      (void)agentry::definitions::yaml_float(node.text);
      break;
    case YamlNode::Kind::sequence:
      for (const auto& item : node.items) count += walk(item);
      break;
    case YamlNode::Kind::map:
      for (const auto& [key, value] : node.entries) {
        FUZZ_CHECK(node.find(key) != nullptr, "every entry can be found by its key");
        count += walk(value);
      }
      break;
  }
  return count;
}

/// Well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF).
bool is_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > text.size()) return false;
    std::uint32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
      const auto d = static_cast<unsigned char>(text[i + k]);
      if ((d >> 6) != 0x2) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    static constexpr std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < smallest[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agentry;
  static const definitions::EnvLookup env = fuzz::fixed_env();
  definitions::Diagnostics diag("fuzz.yaml");
  const std::string_view text = fuzz::as_text(data, size);
  // Finding "yaml-alias-cycle": an alias inside its own anchor ("a: &a [*a]") makes
  // the conversion recurse until the stack overflows, long before its node budget.
  // Tolerating it skips every document with an alias.
  if (fuzz::tolerated("yaml-alias-cycle") && text.find('*') != std::string_view::npos) return 0;

  auto root = definitions::parse_yaml(text, 2, env, diag);
  if (!root) {
    FUZZ_CHECK(diag.has_errors(), "a refused document says why");
    return 0;
  }
  // yaml_parse.cpp stops converting past 100,000 nodes (alias bombs) and says so; the
  // nodes it skips still appear, empty, so only the report can be checked here.
  const std::size_t nodes = walk(*root);
  if (nodes > 100'000) FUZZ_CHECK(diag.has_errors(), "a document over the node budget is reported");
  // backendConfig and other opaque values are kept as this JSON: it must survive a
  // round trip through text (no infinity or NaN, which JSON cannot spell). Finding
  // "invalid-utf8-json": a file that is not UTF-8 (a Latin-1 "caf\xe9"), or one that
  // yaml-cpp takes for UTF-32 because of NUL bytes near its start, gives strings that
  // serialize to bytes no JSON parser, agentry's store included, reads back.
  const std::string json_text = boost::json::serialize(definitions::to_json(*root));
  boost::system::error_code ec;
  (void)boost::json::parse(json_text, ec);
  if (ec && !is_utf8(json_text)) {
    FUZZ_CHECK(fuzz::tolerated("invalid-utf8-json"), "converted strings are UTF-8 whatever the file holds");
  } else {
    FUZZ_CHECK(!ec, "to_json gives JSON that parses back");
  }
  return 0;
}
