/* agentry plugin ABI v1: include this one header.
 *
 * OWNERSHIP (every function follows these)
 *  1. Arguments are borrowed for the duration of the call. Copy what you keep.
 *  2. What a side returns is owned by that side and lives until a named event:
 *     descriptors and factories until the last deinit(); instances and their
 *     extension tables until destroy(); the host table until destroy() has returned.
 *  3. Nothing is freed across the boundary. No C++ exceptions, std:: types or RTTI
 *     cross it; plugins written in C++ catch everything at every entry point.
 *  4. Strings are UTF-8. NUL-terminated unless a size is given next to them.
 *
 * THREADS
 *  control       the host's serialized context for one instance (a strand: calls never
 *                overlap, the OS thread may change). Every instance function except
 *                get_extension runs there.
 *  thread-safe   callable from any thread at any time.
 *  Host callbacks never call back into the plugin before returning.
 *
 * PLUGIN OBLIGATIONS (the host logs violations as "policy N")
 *  1. Export exactly one symbol, agentry_plugin_entry; link with -z defs.
 *  2. entry.init() and deinit() are reference-counted and idempotent.
 *  3. create_backend() does not call the host.
 *  4. Control-context calls return within a few milliseconds and never block on I/O.
 *  5. Every start() that returns AGENTRY_OK is followed by exactly one
 *     AGENTRY_EVENT_FINISHED flagged AGENTRY_EVENT_FLAG_TERMINAL, and nothing after it.
 *  6. Event seq numbers strictly increase per instance, starting at 1.
 *  7. Payloads are JSON objects no larger than AGENTRY_EVENT_MAX_PAYLOAD_BYTES.
 *  8. After interrupt(), the terminal event arrives within the host's grace period
 *     (10 s by default); otherwise the host ends the attempt as an error and keeps the
 *     instance (never destroying it while its threads may still run).
 *  9. AGENTRY_ERR_BUSY from emit() is handled: retry after a short pause, or coalesce.
 * 10. destroy() joins every thread the instance started.
 */
#ifndef AGENTRY_PLUGIN_PLUGIN_H
#define AGENTRY_PLUGIN_PLUGIN_H

#include "agentry/plugin/backend.h"
#include "agentry/plugin/entry.h"
#include "agentry/plugin/events.h"
#include "agentry/plugin/factory.h"
#include "agentry/plugin/host.h"
#include "agentry/plugin/status.h"
#include "agentry/plugin/version.h"

#endif /* AGENTRY_PLUGIN_PLUGIN_H */
