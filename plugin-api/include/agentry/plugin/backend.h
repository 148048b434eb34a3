/* agentry plugin ABI: backend descriptors and instances.
 *
 * Instance states: created -> idle (after init) -> running (after start) -> idle
 * (after the terminal event) ... -> destroyed. The host calls every instance function
 * except get_extension on the instance's control context: serialized per instance, the
 * OS thread may vary. Control-context calls must return within a few milliseconds and
 * never block on I/O; work happens on the plugin's own threads, which report through
 * host->emit(). */
#ifndef AGENTRY_PLUGIN_BACKEND_H
#define AGENTRY_PLUGIN_BACKEND_H

#include "agentry/plugin/host.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Feature keywords a descriptor may list. */
#define AGENTRY_FEATURE_RESUME "resume"       /* start() honours resume_token */
#define AGENTRY_FEATURE_INTERRUPT "interrupt" /* interrupt() ends a turn early */
#define AGENTRY_FEATURE_INPUT "input"         /* send_input() while running */
#define AGENTRY_FEATURE_APPROVALS "approvals" /* emits APPROVAL_REQUEST, takes answers */
#define AGENTRY_FEATURE_DETACH "detach"       /* offers ext/detach.h (ABI 1.1) */
#define AGENTRY_FEATURE_ASK "ask"             /* offers ext/ask.h (ABI 1.2) */

typedef struct agentry_backend_descriptor {
  agentry_version_t abi_version;
  /* The name agent definitions use in `backend:` ("mock", "subprocess", "codex").
   * Letters, digits, '-' and '_'; unique among loaded plugins. Mandatory. */
  const char* id;
  const char* name;        /* for display; mandatory */
  const char* vendor;      /* "" when none */
  const char* version;     /* the plugin's version, "MAJOR.MINOR.PATCH" advised */
  const char* description; /* "" when none */
  /* NULL-terminated list of AGENTRY_FEATURE_* keywords (and others). */
  const char* const* features;
} agentry_backend_descriptor_t;

typedef struct agentry_start_params {
  uint32_t struct_size;       /* sizeof(agentry_start_params_t) as the host was built */
  const char* run_id;
  const char* session_id;     /* host-generated, unique: "<run id>/s<index>" */
  uint32_t session_index;     /* 0 for a fresh run, +1 per resume */
  uint32_t attempt_number;    /* monotonic across the run, from 1 */
  const char* workspace_path; /* absolute; the run's working directory */
  /* {"prompt": string, "brief": string, "message": string}: what to tell the agent.
   * `prompt` is what to send now (the brief on a fresh start, the follow-up on resume). */
  const char* input_json;
  uint64_t input_size;
  /* The run's frozen backend settings: {"backendConfig": object, "model": string,
   * "effort": string, "timeoutSec": int, "unrestricted": bool, "extraArgs": [string],
   * "launcher": {"name","command":[string],"env":{}} | null}. */
  const char* config_json;
  uint64_t config_size;
  /* The last AGENTRY_EVENT_CHECKPOINT token of this run, or NULL/0 for a fresh session. */
  const char* resume_token;
  uint64_t resume_token_size;
  /* NULL-terminated "KEY=VALUE" strings to add to the agent's environment
   * (AGENTRY_RUN_ID, AGENTRY_RUN_GROUP_ID, ...). */
  const char* const* env;
} agentry_start_params_t;

enum {
  AGENTRY_INPUT_MESSAGE = 1, /* {"text": string}: a user message for the running turn */
  AGENTRY_INPUT_APPROVAL = 2 /* {"approvalId": string, "decision": "approve"|"deny"} */
};

typedef struct agentry_input {
  uint32_t struct_size;
  const char* input_id; /* host-generated */
  uint32_t kind;        /* AGENTRY_INPUT_* */
  const char* payload_json;
  uint64_t payload_size;
} agentry_input_t;

typedef struct agentry_backend {
  const agentry_backend_descriptor_t* desc;
  void* backend_data; /* reserved for the plugin */

  /* [control, created] Prepare the instance. On failure the host calls destroy(). */
  agentry_status_t (*init)(const struct agentry_backend* backend);

  /* [control, idle] Begin an attempt and return at once; progress arrives as events,
   * ending with exactly one AGENTRY_EVENT_FINISHED flagged terminal. `params` and
   * everything it points to are borrowed for the call. */
  agentry_status_t (*start)(const struct agentry_backend* backend, const agentry_start_params_t* params);

  /* [control, running] Deliver input to the running attempt. Borrowed for the call.
   * AGENTRY_ERR_UNSUPPORTED unless the descriptor lists "input" (or "approvals"). */
  agentry_status_t (*send_input)(const struct agentry_backend* backend, const agentry_input_t* input);

  /* [control, running] Ask the attempt to stop. Returns at once; idempotent. The
   * attempt ends with FINISHED {"outcome":"interrupted"} (or whatever outcome it had
   * already reached). `reason` is borrowed, NUL-terminated. */
  agentry_status_t (*interrupt)(const struct agentry_backend* backend, const char* reason);

  /* [control, not running] Release everything. When it returns, the plugin's threads
   * for this instance are joined and it never uses its host table again. */
  void (*destroy)(const struct agentry_backend* backend);

  /* [thread-safe] A plugin extension table by id, or NULL. Owned by the plugin, valid
   * until destroy(). Not called before init(). */
  const void* (*get_extension)(const struct agentry_backend* backend, const char* extension_id);

  /* [control] Called after host->request_callback(). */
  void (*on_callback)(const struct agentry_backend* backend);
} agentry_backend_t;

#ifdef __cplusplus
}
#endif

#endif /* AGENTRY_PLUGIN_BACKEND_H */
