#include "cli/daemon_allocator.hpp"

#include <cstdlib>

#include <malloc.h>

namespace agentry::cli {

void limit_daemon_heap_arenas() {
  if (std::getenv("MALLOC_ARENA_MAX")) return;
  mallopt(M_ARENA_MAX, 2);
}

}  // namespace agentry::cli
