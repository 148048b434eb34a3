/* agentry plugin ABI: status codes returned across the boundary.
 * Values are never renumbered or reused; new codes are appended. Human-readable detail
 * travels through the host's log function or an event payload, never a return value. */
#ifndef AGENTRY_PLUGIN_STATUS_H
#define AGENTRY_PLUGIN_STATUS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t agentry_status_t;

enum {
  AGENTRY_OK = 0,
  AGENTRY_ERR_INVALID_ARGUMENT = 1, /* a malformed argument (bad JSON, missing field) */
  AGENTRY_ERR_INVALID_STATE = 2,    /* not allowed now (e.g. start while running, emit after terminal) */
  AGENTRY_ERR_UNSUPPORTED = 3,      /* the callee does not implement this */
  AGENTRY_ERR_BUSY = 4,             /* a bounded queue is full: retry later or coalesce */
  AGENTRY_ERR_TOO_LARGE = 5,        /* over a documented size limit */
  AGENTRY_ERR_NOT_FOUND = 6,        /* unknown id */
  AGENTRY_ERR_INTERNAL = 7          /* a bug or an environment failure in the callee */
};

#ifdef __cplusplus
}
#endif

#endif /* AGENTRY_PLUGIN_STATUS_H */
