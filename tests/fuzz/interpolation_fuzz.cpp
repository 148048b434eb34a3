// interpolate(): ${VAR}, ${VAR:-fallback}, ${VAR-fallback} and $${ in any mix and depth.
// It runs on every scalar of every definition file, including a project's .agentry/
// from someone else's repository, so it must answer (a value or a VALIDATION_FAILED
// error) for any text, in bounded time and memory.

#include "definitions/interpolation.hpp"

#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agentry;
  static const definitions::EnvLookup env = fuzz::fixed_env();
  const std::string_view text = fuzz::as_text(data, size);

  auto result = definitions::interpolate(text, env);
  if (!result) {
    FUZZ_CHECK(result.error().code == core::ErrorCode::validation, "interpolate fails only with VALIDATION_FAILED");
    FUZZ_CHECK(!result.error().message.empty(), "a failure says what is wrong");
    return 0;
  }
  const std::string& out = result.value();
  if (text.find("${") == std::string_view::npos) {
    FUZZ_CHECK(out == text, "text without ${ comes back unchanged");
  }
  // The shortest reference to a set variable is four bytes ("${A}"), and a value is
  // inserted as it is, never interpolated again; a fallback is part of the text itself.
  // So no input can make the output grow by more than this, however it nests.
  FUZZ_CHECK(out.size() <= size * (fuzz::longest_env_value / 4 + 1), "output stays proportional to the input");
  return 0;
}
