/* agentry plugin ABI: host extension "agentry.thread-check/1".
 *
 * Lets a plugin assert the [control] tags of plugin.h in debug builds. A host may not
 * offer it: host->get_extension() then returns NULL and the plugin skips the check. */
#ifndef AGENTRY_PLUGIN_EXT_THREAD_CHECK_H
#define AGENTRY_PLUGIN_EXT_THREAD_CHECK_H

#include <stdbool.h>

#include "agentry/plugin/host.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGENTRY_EXT_THREAD_CHECK "agentry.thread-check/1"

typedef struct agentry_host_thread_check {
  /* [thread-safe] True when the caller runs on the control context of the instance
   * that owns `host` (inside one of its control-context calls). */
  bool (*is_control_context)(const agentry_host_t* host);
} agentry_host_thread_check_t;

#ifdef __cplusplus
}
#endif

#endif /* AGENTRY_PLUGIN_EXT_THREAD_CHECK_H */
