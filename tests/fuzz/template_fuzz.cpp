// render_template(): {{key}}, {{ key }} and \{{ against a JSON context. Templates come
// from definition files and run-time messages, so any text must render or fail with
// VALIDATION_FAILED, never crash or loop.
//
// Input: an optional first line of comma-separated context keys (each gets a value of
// a kind picked by its length, so every JSON kind reaches format()), then the template.

#include "definitions/template.hpp"

#include "fuzz_check.hpp"

#include <boost/json/array.hpp>

#include <limits>

namespace {

boost::json::value value_for(std::string_view key) {
  switch (key.size() % 8) {
    case 0: return boost::json::string(key);
    case 1: return std::int64_t{-42};
    case 2: return std::numeric_limits<std::uint64_t>::max();
    case 3: return key.size() % 16 == 3 ? 0.1 : 1e308;
    case 4: return true;
    case 5: return nullptr;
    case 6: return boost::json::object{{"nested", key}};
    default: return boost::json::array{1, "two", nullptr};
  }
}

boost::json::object context_from(std::string_view keys) {
  boost::json::object context;
  while (!keys.empty()) {
    const auto comma = keys.find(',');
    const auto key = keys.substr(0, comma);
    if (!key.empty()) context[key] = value_for(key);
    if (comma == std::string_view::npos) break;
    keys.remove_prefix(comma + 1);
  }
  return context;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agentry;
  std::string_view input = fuzz::as_text(data, size);
  boost::json::object context;
  std::string_view text = input;
  if (const auto newline = input.find('\n'); newline != std::string_view::npos) {
    context = context_from(input.substr(0, newline));
    text = input.substr(newline + 1);
  }

  auto result = definitions::render_template(text, context);
  if (!result) {
    const auto& error = result.error();
    FUZZ_CHECK(error.code == core::ErrorCode::validation, "render_template fails only with VALIDATION_FAILED");
    FUZZ_CHECK(!error.message.empty(), "a failure says what is wrong");
    FUZZ_CHECK(error.details.contains("offset") || error.details.contains("unknownKeys"),
               "a failure points at the placeholder or names the unknown keys");
    return 0;
  }
  if (text.find("{{") == std::string_view::npos) {
    FUZZ_CHECK(result.value() == text, "text without {{ comes back unchanged");
  }
  return 0;
}
