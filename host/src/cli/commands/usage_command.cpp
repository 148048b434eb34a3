// `usage [--by agent|day|group|run|session] [--since DAY] [--until DAY]`: the tokens
// runs used and what they cost (usage.summary, docs/usage.md).

#include "cli/commands/commands.hpp"
#include "cli/render.hpp"
#include "cli/table.hpp"

#include <cctype>
#include <cstdio>

namespace agentry::cli {
namespace json = boost::json;

namespace {

std::string count_at(const json::value& o, const char* key) {
  auto* v = o.as_object().if_contains(key);
  return v && v->is_int64() ? std::to_string(v->as_int64()) : "-";
}

// "$1.2345", or "?" when a model in it has no price (never a guessed number).
std::string cost_at(const json::value& o) {
  auto* v = o.as_object().if_contains("costUsd");
  if (!v || !v->is_number()) return "?";
  char text[32];
  std::snprintf(text, sizeof text, "$%.4f", v->to_number<double>());
  return text;
}

std::string models_at(const json::value& o) {
  std::string out;
  if (auto* models = o.as_object().if_contains("models"); models && models->is_array())
    for (const auto& m : models->as_array()) {
      auto* name = m.as_object().if_contains("model");
      out += (out.empty() ? "" : ",") + (name && name->is_string() ? std::string(name->as_string()) : "unknown");
    }
  return out.empty() ? "-" : out;
}

std::string render_usage(const json::object& result) {
  std::string by = text_at(result, "by", "agent");
  for (auto& c : by) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  Table table({by, "INPUT", "CACHED", "OUTPUT", "COST", "MODELS"});
  if (auto* entries = result.if_contains("entries"); entries && entries->is_array())
    for (const auto& e : entries->as_array())
      table.add_row({truncate(text_at(e, "key"), 40), count_at(e, "inputTokens"), count_at(e, "cachedInputTokens"),
                     count_at(e, "outputTokens"), cost_at(e), truncate(models_at(e), 50)});
  if (auto* total = result.if_contains("total"))
    table.add_row({"TOTAL", count_at(*total, "inputTokens"), count_at(*total, "cachedInputTokens"),
                   count_at(*total, "outputTokens"), cost_at(*total), truncate(models_at(*total), 50)});
  std::string out = table.render();
  if (auto* warnings = result.if_contains("warnings"); warnings && warnings->is_array())
    for (const auto& w : warnings->as_array())
      if (w.is_string()) out += "warning: " + std::string(w.as_string()) + "\n";
  return out;
}

}  // namespace

int usage_command(CommandContext& ctx, const UsageOptions& options) {
  json::object params;
  if (!options.by.empty()) params["by"] = options.by;
  if (!options.since.empty()) params["since"] = options.since;
  if (!options.until.empty()) params["until"] = options.until;
  auto result = ctx.call("usage.summary", std::move(params));
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) { return render_usage(v.as_object()); });
}

}  // namespace agentry::cli
