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

  // Rendering never fails: a key the context lacks stays as written and is reported.
  const auto result = definitions::render_template(text, context);
  for (const auto& key : result.unknown_keys) {
    FUZZ_CHECK(!context.contains(key), "a key reported unknown is not in the context");
    FUZZ_CHECK(result.text.find(key) != std::string::npos, "an unknown key's placeholder stays in the text");
  }
  if (text.find("{{") == std::string_view::npos) {
    FUZZ_CHECK(result.text == text, "text without {{ comes back unchanged");
  }
  return 0;
}
