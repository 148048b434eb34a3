#pragma once
// prices.yaml in the config directory: what a million tokens cost per model, in USD.
//
//   models:
//     <model name, exactly as runs report it>:
//       input: 3.00         # uncached input tokens
//       cachedInput: 0.30   # input tokens read from the provider's cache
//       output: 15.00       # output (and reasoning) tokens
//
// A model with a missing or bad price is left out (an error naming the field), so its
// cost is null, never a guessed number (core/usage.hpp). No file: no prices, no problem.

#include "core/usage.hpp"
#include "definitions/env.hpp"
#include "definitions/problem.hpp"

#include <filesystem>
#include <string_view>
#include <vector>

namespace agentry::definitions {

struct PriceFile {
  core::PriceTable prices;
  std::vector<Problem> errors;
  std::vector<Problem> warnings;
};

/// Parses the text of a prices.yaml at `path` (named in problems).
PriceFile parse_prices(std::string_view text, const std::string& path, const EnvLookup& env = {});

/// <config_dir>/prices.yaml, parsed; an absent file is an empty table.
PriceFile load_prices(const std::filesystem::path& config_dir, const EnvLookup& env = {});

/// Loads <config_dir>/prices.yaml into core::set_current_prices when the file changed
/// since the last call (size and modification time), logging its problems once per
/// change. Cheap when nothing changed: one stat.
void refresh_current_prices(const std::filesystem::path& config_dir);

}  // namespace agentry::definitions
