#pragma once
// How the daemon's heap is kept small. glibc gives each thread that allocates under
// contention an arena of its own (up to 8 per core) and keeps what was freed in each:
// with the daemon's I/O, worker, writer and plugin threads, a burst of streaming left
// several arenas of 5-15 MiB resident, twice the live heap. Two arenas keep contention
// low on the threads that allocate most (I/O and the writer) and the freed memory shared.

namespace agentry::cli {

/// Called once at `agentry serve` start, before any thread starts. MALLOC_ARENA_MAX in the
/// environment, when set, is left to decide.
void limit_daemon_heap_arenas();

}  // namespace agentry::cli
