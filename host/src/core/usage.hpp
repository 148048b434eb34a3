#pragma once
// Token usage and what it costs. Backends report usage events that carry increments
// (plugin-api events.h AGENTRY_EVENT_USAGE); the store sums them per run, session,
// attempt, model and day (store/usage_repository.hpp). Cost is never stored: it is
// computed when read, from the price table of the config directory (prices.yaml,
// definitions/prices.hpp), and is null for a model the table does not price.

#include <boost/json/object.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentry::core {

struct TokenCounts {
  std::int64_t input = 0;         // not cached
  std::int64_t cached_input = 0;  // read from the provider's cache
  std::int64_t output = 0;
  std::int64_t reasoning = 0;  // part of output for most providers; shown, not priced apart

  TokenCounts& operator+=(const TokenCounts& o) {
    input += o.input;
    cached_input += o.cached_input;
    output += o.output;
    reasoning += o.reasoning;
    return *this;
  }
  std::int64_t total() const { return input + cached_input + output; }
  bool empty() const { return input == 0 && cached_input == 0 && output == 0 && reasoning == 0; }
};

/// Tokens one model used; model nullopt when nobody knew which model it was.
struct ModelUsage {
  std::optional<std::string> model;
  TokenCounts tokens;
};

/// The increment a usage event's payload reports (negative or non-integer fields count as
/// 0), and the model it names, if any.
ModelUsage usage_of_event(const boost::json::object& payload);

/// Adds `add` to the entry of its model in `into` (appended when new).
void add_usage(std::vector<ModelUsage>& into, const ModelUsage& add);

/// USD per million tokens for one model.
struct ModelPrice {
  double input = 0;
  double cached_input = 0;
  double output = 0;
};

/// Prices by model name (exact match).
using PriceTable = std::map<std::string, ModelPrice>;

/// The cost of `usage`, or nullopt when its model is unknown or not in `prices`: a
/// missing price never becomes a guessed number.
std::optional<double> cost_of(const ModelUsage& usage, const PriceTable& prices);

/// { inputTokens, cachedInputTokens, outputTokens, reasoningTokens, costUsd|null,
///   models: [{ model|null, inputTokens, ..., costUsd|null }] }. costUsd is null when any
/// model's is. Each model without a price adds a sentence to `warnings`, when given.
boost::json::object usage_json(const std::vector<ModelUsage>& usage, const PriceTable& prices,
                               std::vector<std::string>* warnings = nullptr);

/// The token fields alone: { inputTokens, cachedInputTokens, outputTokens, reasoningTokens }.
boost::json::object token_counts_json(const TokenCounts& tokens);

/// The daemon's price table, as last loaded from the config directory (prices.yaml).
/// Process-wide because every transport renders usage through events/projections.hpp,
/// which has no config of its own; replaced whole, so a reader holds one version.
std::shared_ptr<const PriceTable> current_prices();
void set_current_prices(PriceTable prices);

/// Logs, once per model and process, that tokens of `model` have no price (the daemon
/// log's half of "an unknown model gives cost null with a warning").
void warn_if_unpriced(const std::optional<std::string>& model);

/// How much a run may use (docs/usage.md): a limit in tokens (input + cached input +
/// output, over all models) or in USD (by the current prices), and the fractions of it at
/// which the run notifies (soft: run.needs_user, once) and is stopped (hard: the attempt is
/// interrupted and the run ends blocked).
struct Budget {
  std::optional<std::int64_t> tokens;
  std::optional<double> usd;
  double soft = 0.8;
  double hard = 1.0;
};

/// Reads `{tokens: N | usd: X, soft?: fraction, hard?: fraction}`; on failure nullopt,
/// with `field` (relative to the budget, "" for the whole) and `error` set.
std::optional<Budget> parse_budget(const boost::json::value& value, std::string& field, std::string& error);
/// The budget as written: { tokens|usd, soft, hard }.
boost::json::object budget_json(const Budget& budget);

/// usage as stored beside a run: [{ model|null, input, cachedInput, output, reasoning }].
std::string encode_usage(const std::vector<ModelUsage>& usage);
/// ... and back; an absent or unreadable text is no usage.
std::vector<ModelUsage> decode_usage(const std::optional<std::string>& text);

}  // namespace agentry::core
