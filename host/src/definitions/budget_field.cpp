// `budget:` in agents and assignments: what one run may use (core/usage.hpp, docs/usage.md).

#include "definitions/field_reader.hpp"
#include "definitions/parsers.hpp"
#include "definitions/yaml_node.hpp"

namespace agentry::definitions {

std::optional<core::Budget> read_budget(FieldReader& reader) {
  const YamlNode* node = reader.take("budget");
  if (node == nullptr || node->is_null()) return std::nullopt;
  std::string field, error;
  auto budget = core::parse_budget(to_json(*node), field, error);
  if (!budget) {
    const std::string at = reader.field("budget");
    reader.diag().error(field.empty() ? at : join_field(at, field), error);
  }
  return budget;
}

}  // namespace agentry::definitions
