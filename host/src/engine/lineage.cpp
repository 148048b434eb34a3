#include "engine/lineage.hpp"

#include "store/run_repository.hpp"

#include <charconv>

namespace agentry::engine {

int lineage_depth(store::Connection& c, const core::Run& run, int limit) {
  int depth = 1;
  std::optional<std::string> parent = run.parent_run_id;
  while (parent && !parent->empty() && depth < limit) {
    auto up = store::RunRepository::get(c, *parent);
    if (!up) break;
    ++depth;
    parent = up->parent_run_id;
  }
  return depth;
}

std::optional<int> parse_max_call_depth(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1 || value > max_call_depth_limit)
    return std::nullopt;
  return value;
}

}  // namespace agentry::engine
