/* agentry plugin ABI: backend extension "agentry.ask/1" and its host half
 * "agentry.ask-answer/1" (since ABI 1.2).
 *
 * Answers a question about a run's state without starting a turn of the run and
 * without touching its history. The host creates a fresh instance for each question,
 * never starts it, calls ask() once on its control context, and destroys it when the
 * answer has arrived or the host's deadline has passed (destroy must then abandon the
 * question and join whatever it started, obligation 10). A backend that offers this
 * lists AGENTRY_FEATURE_ASK and returns the table from get_extension(AGENTRY_EXT_ASK). */
#ifndef AGENTRY_PLUGIN_EXT_ASK_H
#define AGENTRY_PLUGIN_EXT_ASK_H

#include "agentry/plugin/backend.h"
#include "agentry/plugin/host.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGENTRY_EXT_ASK "agentry.ask/1"

typedef struct agentry_backend_ask {
  uint32_t struct_size; /* sizeof(agentry_backend_ask_t) as the plugin was built */

  /* [control, idle] Begin answering and return at once (obligation 4). `ask_id` and
   * `request_json` are borrowed. request_json is an object:
   *   {"askId": string, "question": string, "runId": string,
   *    "config": object       the backendConfig a start() of this run would get,
   *    "workspacePath": string, "resumeToken": string|null (the run's last checkpoint),
   *    "state": {"status": string, "statusReason": string|null,
   *              "tasks": [{"id", "title", "status", "note"?}],
   *              "recentTimeline": [{"type": string, "text"?: string, "tool"?: string,
   *                                  "status"?: string}]  (oldest first, bounded),
   *              "finalMessage": string|null,
   *              "latestFrame": {"mime", "data" (base64)}|null}}
   * The answer arrives later, exactly once, through the host extension below, from any
   * thread. AGENTRY_ERR_UNSUPPORTED when this configuration cannot answer (the host
   * then says "not supported"); AGENTRY_ERR_INVALID_ARGUMENT for a malformed request. */
  agentry_status_t (*ask)(const agentry_backend_t* backend, const char* ask_id, const char* request_json);
} agentry_backend_ask_t;

#define AGENTRY_EXT_ASK_ANSWER "agentry.ask-answer/1"

typedef struct agentry_host_ask_answer {
  uint32_t struct_size; /* sizeof(agentry_host_ask_answer_t) as the host was built */

  /* [thread-safe] The answer to the question `ask_id`: {"answer": string,
   * "usage"?: {"inputTokens", "outputTokens"}} or {"error": string}. Both strings are
   * borrowed. AGENTRY_ERR_INVALID_STATE for an unknown or already answered ask_id (the
   * host may have given up waiting), AGENTRY_ERR_INVALID_ARGUMENT for malformed JSON. */
  agentry_status_t (*answer)(const agentry_host_t* host, const char* ask_id, const char* answer_json);
} agentry_host_ask_answer_t;

#ifdef __cplusplus
}
#endif

#endif /* AGENTRY_PLUGIN_EXT_ASK_H */
