/* The public ABI headers compile as strict C11 (-std=c11 -Wpedantic -Werror), so they
 * never pick up C++-only constructs, and their layout rules hold. */
#include "agentry/plugin/plugin.h"
#include "agentry/plugin/ext/ask.h"
#include "agentry/plugin/ext/detach.h"
#include "agentry/plugin/ext/thread_check.h"

#include <stddef.h>

/* Every growable boundary struct starts with its version or its size. */
_Static_assert(offsetof(agentry_event_t, struct_size) == 0, "event: struct_size first");
_Static_assert(offsetof(agentry_start_params_t, struct_size) == 0, "start params: struct_size first");
_Static_assert(offsetof(agentry_input_t, struct_size) == 0, "input: struct_size first");
_Static_assert(offsetof(agentry_plugin_entry_t, abi_version) == 0, "entry: version first");
_Static_assert(offsetof(agentry_backend_descriptor_t, abi_version) == 0, "descriptor: version first");
_Static_assert(offsetof(agentry_host_t, abi_version) == 0, "host: version first");
_Static_assert(offsetof(agentry_backend_detach_t, struct_size) == 0, "detach extension: struct_size first");
/* Fixed-width fields keep the layout the same for every compiler. */
_Static_assert(sizeof(agentry_status_t) == 4, "status is int32");
_Static_assert(sizeof(agentry_version_t) == 12, "three uint32");
_Static_assert(AGENTRY_EVENT_FINISHED == 10, "event ids are never renumbered");
_Static_assert(AGENTRY_ERR_INTERNAL == 7, "status codes are never renumbered");

int agentry_abi_c11_check(void);

int agentry_abi_c11_check(void) {
  agentry_version_t mine = AGENTRY_PLUGIN_ABI_VERSION_INIT;
  agentry_version_t other_major = {AGENTRY_PLUGIN_ABI_MAJOR + 1u, 0u, 0u};
  agentry_host_thread_check_t check = {NULL};
  agentry_event_t event = {sizeof(agentry_event_t), AGENTRY_EVENT_NOTICE, 0, 0, 1, 0, "{}", 2};
  int failures = 0;
  if (!agentry_version_is_compatible(mine)) ++failures;
  if (agentry_version_is_compatible(other_major)) ++failures;
  if (check.is_control_context != NULL || event.seq != 1) ++failures;
  return failures;
}
