#include "support/source_tree.hpp"

#ifndef AGENTRY_SOURCE_TREE
#error "AGENTRY_SOURCE_TREE must be defined (tests/support/CMakeLists.txt)"
#endif

namespace agentry::test {

const std::filesystem::path& source_tree() {
  static const std::filesystem::path root(AGENTRY_SOURCE_TREE);
  return root;
}

std::string source_file(std::string_view relative) { return (source_tree() / relative).string(); }

}  // namespace agentry::test
