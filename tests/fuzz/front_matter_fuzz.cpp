// split_front_matter(): every definition .md file goes through it before YAML parsing.
// Any bytes must split or fail with VALIDATION_FAILED, and a split must only ever hand
// out pieces of the file itself.

#include "definitions/front_matter.hpp"

#include "fuzz_check.hpp"

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agentry;
  const std::string_view text = fuzz::as_text(data, size);

  auto result = definitions::split_front_matter(text);
  if (!result) {
    FUZZ_CHECK(result.error().code == core::ErrorCode::validation, "failures are VALIDATION_FAILED");
    FUZZ_CHECK(!result.error().message.empty(), "a failure says what is wrong");
    return 0;
  }
  const auto& split = result.value();
  FUZZ_CHECK(split.yaml_first_line == 2, "the YAML starts on the line after the opening ---");
  FUZZ_CHECK(split.yaml.size() + split.body.size() <= text.size(), "the pieces come from the file");
  FUZZ_CHECK(text.find(split.yaml) != std::string_view::npos, "the YAML is a slice of the file");
  FUZZ_CHECK(text.find(split.body) != std::string_view::npos, "the body is a slice of the file");
  if (!split.body.empty()) {
    FUZZ_CHECK(split.body.front() != '\n', "leading blank lines are dropped from the body");
    FUZZ_CHECK(!is_blank(split.body.back()), "trailing whitespace is dropped from the body");
  }
  return 0;
}
