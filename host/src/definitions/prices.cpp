#include "definitions/prices.hpp"

#include "core/log.hpp"
#include "definitions/yaml_node.hpp"

#include <fstream>
#include <mutex>
#include <sstream>

namespace agentry::definitions {
namespace {

std::optional<double> read_price(const YamlNode& model, std::string_view key, const std::string& field,
                                 Diagnostics& diag) {
  const YamlNode* node = model.find(key);
  const std::string at = field + "." + std::string(key);
  if (node == nullptr || node->is_null()) {
    diag.error(at, "is required: USD per million tokens");
    return std::nullopt;
  }
  auto value = node->is_scalar() ? yaml_float(node->text) : std::nullopt;
  if (!value || !(*value >= 0)) {
    diag.error(at, "must be a number of USD per million tokens, 0 or more");
    return std::nullopt;
  }
  return value;
}

}  // namespace

PriceFile parse_prices(std::string_view text, const std::string& path, const EnvLookup& env) {
  PriceFile out;
  Diagnostics diag(path);
  auto doc = parse_yaml(text, 1, env, diag);
  if (doc && !doc->is_null()) {
    const YamlNode* models = doc->is_map() ? doc->find("models") : nullptr;
    if (!doc->is_map()) diag.error("", "must be a map with a `models` map");
    for (const auto& [key, value] : doc->is_map() ? doc->entries : decltype(doc->entries){})
      if (key != "models") diag.warn(key, "is not a field of prices.yaml (only `models`); ignored");
    if (models != nullptr && !models->is_map()) diag.error("models", "must be a map of model name to prices");
    if (models != nullptr && models->is_map())
      for (const auto& [name, prices] : models->entries) {
        const std::string field = "models." + name;
        if (!prices.is_map()) {
          diag.error(field, "must be a map with input, cachedInput and output");
          continue;
        }
        for (const auto& [key, unused] : prices.entries)
          if (key != "input" && key != "cachedInput" && key != "output")
            diag.warn(field + "." + key, "is not a price field (input, cachedInput, output); ignored");
        auto input = read_price(prices, "input", field, diag);
        auto cached = read_price(prices, "cachedInput", field, diag);
        auto output = read_price(prices, "output", field, diag);
        // A model priced only in part stays unpriced: a partial sum would be a wrong number.
        if (input && cached && output) out.prices[name] = core::ModelPrice{*input, *cached, *output};
      }
  }
  out.errors = diag.errors();
  out.warnings = diag.warnings();
  return out;
}

PriceFile load_prices(const std::filesystem::path& config_dir, const EnvLookup& env) {
  const auto path = config_dir / "prices.yaml";
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return parse_prices(text.str(), path.string(), env);
}

void refresh_current_prices(const std::filesystem::path& config_dir) {
  static std::mutex mutex;
  static std::string seen;  // the path, size and time of the file last loaded ("" = none yet)
  const auto path = config_dir / "prices.yaml";
  std::error_code ec;
  std::string stamp = path.string() + "|";
  if (auto size = std::filesystem::file_size(path, ec); !ec) {
    stamp += std::to_string(size) + "|" +
             std::to_string(std::filesystem::last_write_time(path, ec).time_since_epoch().count());
  } else {
    stamp += "absent";
  }
  std::lock_guard lock(mutex);
  if (stamp == seen) return;
  seen = stamp;
  auto file = load_prices(config_dir);
  for (const auto& p : file.errors) core::log_warn("prices.yaml: " + describe(p) + " (that model's cost is null)");
  for (const auto& p : file.warnings) core::log_warn("prices.yaml: " + describe(p));
  core::set_current_prices(std::move(file.prices));
}

}  // namespace agentry::definitions
