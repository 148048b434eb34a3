#include "core/pages.hpp"

namespace agentry::core {

bool is_valid_run_page_cursor(std::string_view cursor) {
  auto bar = cursor.rfind('|');
  return bar != std::string_view::npos && bar > 0 && bar + 1 < cursor.size();
}

}  // namespace agentry::core
