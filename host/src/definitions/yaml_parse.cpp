// The only translation unit that sees yaml-cpp: it turns yaml-cpp's tree into a
// YamlNode, interpolating ${...} in every scalar value on the way.

#include "core/utf8.hpp"
#include "definitions/interpolation.hpp"
#include "definitions/yaml_node.hpp"

#include <yaml-cpp/yaml.h>

#include <unordered_set>

namespace agentry::definitions {
namespace {

class Converter {
 public:
  Converter(int first_line, const EnvLookup& env, const EnvAllow& allow, Diagnostics& diag)
      : first_line_(first_line), env_(env), allow_(allow), diag_(diag) {}

  YamlNode convert(const YAML::Node& node, const std::string& field, std::size_t depth = 0) {
    YamlNode out;
    // Past a budget nothing more is read: a hostile file costs the budget once, not once
    // per value its aliases would still expand to.
    if (exhausted_) return out;
    // An alias may refer to the node that holds it (a: &a [*a]): without a bound the
    // walk recurses until the stack is gone.
    if (depth > max_depth) {
      if (!depth_reported_) {
        diag_.error(field, "values are nested more than " + std::to_string(max_depth) +
                               " deep (does an alias refer to itself?); it is not read further");
        depth_reported_ = true;
      }
      return out;
    }
    if (++nodes_ > max_nodes) {
      diag_.error(field, "the document has more than " + std::to_string(max_nodes) +
                             " values (are aliases expanding it?); it is not read further");
      exhausted_ = true;
      return out;
    }
    const int mark_line = node.Mark().line;  // -1 for nodes yaml-cpp made up (empty values)
    out.line = mark_line < 0 ? 0 : mark_line + first_line_;
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out.kind = YamlNode::Kind::null;
        break;
      case YAML::NodeType::Scalar:
        out.kind = YamlNode::Kind::scalar;
        out.plain = node.Tag() == "?";
        out.text = utf8(interpolated(node.Scalar(), field), field);
        if (!within_budget(out.text.size(), field)) out.text.clear();
        break;
      case YAML::NodeType::Sequence: {
        out.kind = YamlNode::Kind::sequence;
        std::size_t index = 0;
        for (const auto& item : node) {
          if (exhausted_) break;
          out.items.push_back(convert(item, index_field(field, index), depth + 1));
          ++index;
        }
        break;
      }
      case YAML::NodeType::Map:
        out.kind = YamlNode::Kind::map;
        convert_map(node, field, out, depth);
        break;
    }
    return out;
  }

 private:
  void convert_map(const YAML::Node& node, const std::string& field, YamlNode& out, std::size_t depth) {
    std::unordered_set<std::string> seen;
    for (const auto& entry : node) {
      if (exhausted_) break;
      if (!entry.first.IsScalar()) {
        diag_.error(field, "keys must be plain names, not lists or maps (line " +
                               std::to_string(entry.first.Mark().line + first_line_) + ")");
        continue;
      }
      const std::string key = utf8(entry.first.Scalar(), field);
      const std::string child = join_field(field, key);
      // yaml-cpp keeps both copies of a repeated key; YAML forbids it and a user
      // would silently lose one of them.
      if (!seen.insert(key).second) {
        diag_.error(child, "appears more than once (line " +
                               std::to_string(entry.first.Mark().line + first_line_) + ")");
        continue;
      }
      out.entries.emplace_back(key, convert(entry.second, child, depth + 1));
    }
  }

  std::string interpolated(const std::string& text, const std::string& field) {
    if (text.find('$') == std::string::npos) return text;
    auto result = interpolate(text, env_, {}, allow_);
    if (!result) {
      diag_.error(field, result.error().message);
      return text;
    }
    return std::move(result).value();
  }

  /// The file was made UTF-8 before parsing, but an environment variable may not be, and
  /// yaml-cpp may decode a file as UTF-16/32 (NUL bytes near its start) into bytes that
  /// are not: everything kept must be UTF-8.
  std::string utf8(std::string text, const std::string& field) {
    if (core::is_valid_utf8(text)) return text;
    diag_.warn(field, "this value is not valid UTF-8 (an environment variable, or a file yaml-cpp read as "
                      "UTF-16/32); its bad bytes were replaced");
    return core::sanitize_utf8(text);
  }

  /// Aliases can repeat one large value many times within max_nodes; the whole
  /// document's text is bounded too.
  bool within_budget(std::size_t bytes, const std::string& field) {
    text_bytes_ += bytes;
    if (text_bytes_ <= max_text_bytes) return true;
    diag_.error(field, "the document's values add up to more than " + std::to_string(max_text_bytes) +
                           " bytes (are aliases repeating a large value?); it is not read further");
    exhausted_ = true;
    return false;
  }

  // Aliases let a tiny file expand to billions of nodes; a project's .agentry/ may
  // come from someone else's repository, so conversion stops at a generous budget.
  static constexpr std::size_t max_nodes = 100'000;
  // Below Boost.JSON's default parse depth (32): a value kept as JSON (backendConfig)
  // must read back from the run's stored frozen inputs.
  static constexpr std::size_t max_depth = 24;
  static constexpr std::size_t max_text_bytes = 4 * 1024 * 1024;

  std::size_t nodes_ = 0;
  std::size_t text_bytes_ = 0;
  bool exhausted_ = false;  // a budget ran out (reported once): nothing more is converted
  bool depth_reported_ = false;
  int first_line_;
  const EnvLookup& env_;
  const EnvAllow& allow_;
  Diagnostics& diag_;
};

}  // namespace

std::optional<YamlNode> parse_yaml(std::string_view text, int first_line, const EnvLookup& env,
                                   Diagnostics& diag, const EnvAllow& allow) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    diag.error("", "invalid YAML at line " + std::to_string(e.mark.line + first_line) +
                       ", column " + std::to_string(e.mark.column + 1) + ": " + e.msg);
    return std::nullopt;
  }
  const EnvLookup lookup = env_or_process(env);
  Converter converter(first_line, lookup, allow, diag);
  try {
    return converter.convert(root, "");
  } catch (const YAML::Exception& e) {
    // Conversion only reads the tree, but yaml-cpp reports bad aliases lazily.
    diag.error("", std::string("invalid YAML: ") + e.msg);
    return std::nullopt;
  }
}

}  // namespace agentry::definitions
