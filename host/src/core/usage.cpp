#include "core/usage.hpp"

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "core/log.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>

namespace agentry::core {
namespace json = boost::json;

namespace {

std::int64_t count_field(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return 0;
  if (v->is_int64()) return std::max<std::int64_t>(0, v->get_int64());
  if (v->is_uint64()) return static_cast<std::int64_t>(std::min<std::uint64_t>(v->get_uint64(), INT64_MAX));
  if (v->is_double() && std::isfinite(v->get_double()) && v->get_double() > 0)
    return static_cast<std::int64_t>(v->get_double());
  return 0;
}

json::value model_json(const std::optional<std::string>& model) {
  return model ? json::value(*model) : json::value(nullptr);
}

}  // namespace

ModelUsage usage_of_event(const json::object& payload) {
  ModelUsage u;
  u.tokens.input = count_field(payload, "inputTokens");
  u.tokens.cached_input = count_field(payload, "cachedInputTokens");
  u.tokens.output = count_field(payload, "outputTokens");
  u.tokens.reasoning = count_field(payload, "reasoningTokens");
  if (auto* m = payload.if_contains("model"); m && m->is_string() && !m->get_string().empty())
    u.model = std::string(m->get_string());
  return u;
}

void add_usage(std::vector<ModelUsage>& into, const ModelUsage& add) {
  for (auto& u : into)
    if (u.model == add.model) {
      u.tokens += add.tokens;
      return;
    }
  into.push_back(add);
}

std::optional<double> cost_of(const ModelUsage& usage, const PriceTable& prices) {
  if (!usage.model) return std::nullopt;
  auto price = prices.find(*usage.model);
  if (price == prices.end()) return std::nullopt;
  const auto& p = price->second;
  const auto& t = usage.tokens;
  return (static_cast<double>(t.input) * p.input + static_cast<double>(t.cached_input) * p.cached_input +
          static_cast<double>(t.output) * p.output) /
         1e6;
}

json::object token_counts_json(const TokenCounts& t) {
  return {{"inputTokens", t.input},
          {"cachedInputTokens", t.cached_input},
          {"outputTokens", t.output},
          {"reasoningTokens", t.reasoning}};
}

json::object usage_json(const std::vector<ModelUsage>& usage, const PriceTable& prices,
                        std::vector<std::string>* warnings) {
  TokenCounts total;
  std::optional<double> cost = 0.0;
  json::array models;
  for (const auto& u : usage) {
    total += u.tokens;
    auto model_cost = cost_of(u, prices);
    if (!model_cost) {
      cost.reset();
      if (warnings)
        warnings->push_back(u.model ? "no price for model " + *u.model + " in prices.yaml: its cost is null"
                                    : std::string("tokens of an unknown model: their cost is null"));
    } else if (cost) {
      *cost += *model_cost;
    }
    auto m = token_counts_json(u.tokens);
    m["model"] = model_json(u.model);
    m["costUsd"] = model_cost ? json::value(*model_cost) : json::value(nullptr);
    models.push_back(std::move(m));
  }
  auto out = token_counts_json(total);
  out["costUsd"] = cost ? json::value(*cost) : json::value(nullptr);
  out["models"] = std::move(models);
  return out;
}

namespace {

std::optional<double> number_of(const json::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  if (v.is_double() && std::isfinite(v.get_double())) return v.get_double();
  return std::nullopt;
}

}  // namespace

std::optional<Budget> parse_budget(const json::value& value, std::string& field, std::string& error) {
  const auto fail = [&](std::string f, std::string e) -> std::optional<Budget> {
    field = std::move(f);
    error = std::move(e);
    return std::nullopt;
  };
  if (!value.is_object()) return fail("", "must be a map: {tokens: N | usd: X, soft?: fraction, hard?: fraction}");
  Budget b;
  for (const auto& [key, v] : value.get_object()) {
    auto n = number_of(v);
    if (key == "tokens") {
      if (!v.is_int64() && !v.is_uint64()) return fail("tokens", "must be a whole number of tokens above 0");
      if (v.is_int64() && v.get_int64() <= 0) return fail("tokens", "must be a whole number of tokens above 0");
      b.tokens = v.is_int64() ? v.get_int64() : static_cast<std::int64_t>(std::min<std::uint64_t>(v.get_uint64(), INT64_MAX));
    } else if (key == "usd") {
      if (!n || *n <= 0) return fail("usd", "must be an amount of USD above 0");
      b.usd = *n;
    } else if (key == "soft" || key == "hard") {
      if (!n || *n <= 0 || *n > 10) return fail(std::string(key), "must be a fraction of the limit above 0 (1 = the whole limit)");
      (key == "soft" ? b.soft : b.hard) = *n;
    } else {
      return fail(std::string(key), "is not a budget field (tokens, usd, soft, hard)");
    }
  }
  if (b.tokens.has_value() == b.usd.has_value()) return fail("", "needs exactly one limit: tokens or usd");
  if (b.soft > b.hard) return fail("soft", "must not be above hard");
  return b;
}

json::object budget_json(const Budget& b) {
  json::object out;
  if (b.tokens) out["tokens"] = *b.tokens;
  if (b.usd) out["usd"] = *b.usd;
  out["soft"] = b.soft;
  out["hard"] = b.hard;
  return out;
}

namespace {
std::mutex prices_mutex;
std::shared_ptr<const PriceTable> prices_now = std::make_shared<const PriceTable>();
std::set<std::string> warned_models;
}  // namespace

std::shared_ptr<const PriceTable> current_prices() {
  std::lock_guard lock(prices_mutex);
  return prices_now;
}

void set_current_prices(PriceTable prices) {
  std::lock_guard lock(prices_mutex);
  prices_now = std::make_shared<const PriceTable>(std::move(prices));
  warned_models.clear();  // a new table: say again what it still lacks
}

void warn_if_unpriced(const std::optional<std::string>& model) {
  const std::string name = model.value_or("");
  {
    std::lock_guard lock(prices_mutex);
    if (model && prices_now->contains(*model)) return;
    if (!warned_models.insert(name).second) return;
  }
  if (model)
    log_warn("no price for this model in prices.yaml: its cost is null", {{"model", name}});
  else
    log_warn("tokens reported without a model and the run has none configured: their cost is null", {});
}

std::string encode_usage(const std::vector<ModelUsage>& usage) {
  json::array out;
  for (const auto& u : usage)
    out.push_back(json::object{{"model", model_json(u.model)},
                               {"input", u.tokens.input},
                               {"cachedInput", u.tokens.cached_input},
                               {"output", u.tokens.output},
                               {"reasoning", u.tokens.reasoning}});
  return json::serialize(out);
}

std::vector<ModelUsage> decode_usage(const std::optional<std::string>& text) {
  std::vector<ModelUsage> out;
  if (!text) return out;
  boost::system::error_code ec;
  auto parsed = json::parse(*text, ec);
  if (ec || !parsed.is_array()) return out;
  for (const auto& item : parsed.get_array()) {
    if (!item.is_object()) continue;
    const auto& o = item.get_object();
    ModelUsage u;
    if (auto* m = o.if_contains("model"); m && m->is_string()) u.model = std::string(m->get_string());
    u.tokens.input = count_field(o, "input");
    u.tokens.cached_input = count_field(o, "cachedInput");
    u.tokens.output = count_field(o, "output");
    u.tokens.reasoning = count_field(o, "reasoning");
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace agentry::core
