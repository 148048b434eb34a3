/* agentry plugin ABI: backend extension "agentry.detach/1" (since ABI 1.1).
 *
 * For backends whose agent keeps working without the host: a Codex app-server that
 * someone else runs. When the daemon stops, such an attempt is let go of instead of
 * interrupted; when the daemon starts again, a new instance takes it over. A backend
 * that offers this lists AGENTRY_FEATURE_DETACH and returns this table from
 * get_extension(AGENTRY_EXT_DETACH). */
#ifndef AGENTRY_PLUGIN_EXT_DETACH_H
#define AGENTRY_PLUGIN_EXT_DETACH_H

#include "agentry/plugin/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGENTRY_EXT_DETACH "agentry.detach/1"

typedef struct agentry_backend_detach {
  uint32_t struct_size; /* sizeof(agentry_backend_detach_t) as the plugin was built */

  /* [control, running] Let go of the running attempt and leave the agent working.
   * Returns at once. The attempt then ends with FINISHED {"outcome": "detached",
   * "message": string, "transportType"?: string}; nothing is interrupted.
   * AGENTRY_ERR_UNSUPPORTED when this attempt cannot outlive the instance (the agent is
   * the plugin's child) or could not be found again (the agent has not confirmed it
   * yet): the host then interrupts it. `reason` is borrowed. A host detaches only when
   * its process ends for good (a daemon stopping), never to stop a run. */
  agentry_status_t (*detach)(const agentry_backend_t* backend, const char* reason);

  /* [control, idle] Begin an attempt that takes over the one an earlier instance (of
   * this or a dead process) left running. `params` are as for start(), with the resume
   * token of that attempt, and input_json {"prompt": what that attempt was to say,
   * "brief", "message", "checkpoint": its last CHECKPOINT payload, or null}. The first
   * event is a NOTICE whose payload also carries
   *   "adoption": {"decision": "readopted"|"imported"|"started"|"finalized",
   *                "reason": string, "remoteStatus": string|null,
   *                "transportType"?: string, "error"?: string}
   * readopted: the work is still going and this attempt now follows it to its end;
   * imported:  it ended meanwhile, and the attempt reports how (its output, then FINISHED);
   * started:   it never reached the agent, and this attempt sends the prompt now;
   * finalized: it cannot be taken over; FINISHED {"outcome": "error"} follows (or
   *            "interrupted" when the host interrupted the adoption).
   * An adopting attempt that is detached before it reports ends with FINISHED
   * {"outcome": "detached"} and no NOTICE.
   * AGENTRY_ERR_UNSUPPORTED when this configuration can never be adopted. */
  agentry_status_t (*adopt)(const agentry_backend_t* backend, const agentry_start_params_t* params);
} agentry_backend_detach_t;

#ifdef __cplusplus
}
#endif

#endif /* AGENTRY_PLUGIN_EXT_DETACH_H */
