/* agentry plugin ABI: the host's table, one per backend instance.
 *
 * The host passes a distinct agentry_host_t to every create_backend call, so a
 * callback identifies its instance through host_data. The table stays valid until
 * destroy() of that instance has returned. */
#ifndef AGENTRY_PLUGIN_HOST_H
#define AGENTRY_PLUGIN_HOST_H

#include "agentry/plugin/events.h"
#include "agentry/plugin/status.h"
#include "agentry/plugin/version.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  AGENTRY_LOG_DEBUG = 0,
  AGENTRY_LOG_INFO = 1,
  AGENTRY_LOG_WARNING = 2,
  AGENTRY_LOG_ERROR = 3,
  /* The plugin reports that the host broke the contract. */
  AGENTRY_LOG_HOST_MISBEHAVING = 4
};

typedef struct agentry_host {
  agentry_version_t abi_version;
  void* host_data; /* reserved for the host */
  const char* name;    /* "agentry" */
  const char* version; /* the host's version, "MAJOR.MINOR.PATCH" */

  /* [thread-safe] Copies `event` (header and payload) into the instance's bounded
   * queue and returns; never calls into the plugin. Returns AGENTRY_OK,
   * AGENTRY_ERR_BUSY (queue full: retry shortly or coalesce), AGENTRY_ERR_TOO_LARGE,
   * AGENTRY_ERR_INVALID_ARGUMENT (bad header, payload not a JSON object, a non-FINISHED
   * event flagged terminal) or AGENTRY_ERR_INVALID_STATE (a terminal event was already
   * accepted, or the host gave up on the instance: obligation 8 in plugin.h). */
  agentry_status_t (*emit)(const struct agentry_host* host, const agentry_event_t* event);

  /* [thread-safe] One line in the host's log. `message` is borrowed, NUL-terminated UTF-8. */
  void (*log)(const struct agentry_host* host, int32_t severity, const char* message);

  /* [thread-safe] Asks the host to call backend->on_callback() soon on the control
   * context. Repeated requests before the callback runs are merged into one. */
  void (*request_callback)(const struct agentry_host* host);

  /* [thread-safe] A host extension table by id ("agentry.<name>/<rev>"), or NULL.
   * Owned by the host, valid until after destroy(). */
  const void* (*get_extension)(const struct agentry_host* host, const char* extension_id);
} agentry_host_t;

#ifdef __cplusplus
}
#endif

#endif /* AGENTRY_PLUGIN_HOST_H */
