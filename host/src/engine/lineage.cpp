#include "engine/lineage.hpp"

#include "store/run_repository.hpp"
#include "store/transaction.hpp"


namespace agentry::engine {

int lineage_depth(store::Transaction& c, const core::Run& run, int limit) {
  int depth = 1;
  std::optional<std::string> parent = run.parent_run_id;
  while (parent && !parent->empty() && depth < limit) {
    auto up = c.runs().get(*parent);
    if (!up) break;
    ++depth;
    parent = up->parent_run_id;
  }
  return depth;
}

}  // namespace agentry::engine
