/* agentry plugin ABI: events a backend emits to the host.
 *
 * An event is a small fixed header plus a UTF-8 JSON object payload. Type ids are
 * numbered once and never renumbered or reused; new ones are appended in a later minor.
 * The payload schema of each type is documented next to its id; unknown payload fields
 * are kept by the host and shown to clients as they are. */
#ifndef AGENTRY_PLUGIN_EVENTS_H
#define AGENTRY_PLUGIN_EVENTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  /* {"text": string, "itemId"?: string}: a piece of assistant text as it streams. */
  AGENTRY_EVENT_MESSAGE_DELTA = 1,
  /* {"text": string, "itemId"?: string, "role"?: "assistant"}: a whole message. */
  AGENTRY_EVENT_MESSAGE_COMPLETED = 2,
  /* {"text": string, "itemId"?: string}: the agent's reasoning summary. */
  AGENTRY_EVENT_REASONING = 3,
  /* {"toolCallId": string, "tool": "command"|"file_change"|string, "command"?: string,
   *  "path"?: string, "input"?: any}: a tool call began. */
  AGENTRY_EVENT_TOOL_STARTED = 4,
  /* {"toolCallId": string, "tool": string, "status": "completed"|"failed"|"declined",
   *  "output"?: string, "exitCode"?: integer, "changes"?: any}: a tool call ended. */
  AGENTRY_EVENT_TOOL_COMPLETED = 5,
  /* {"approvalId": string, "kind": "command"|"file_change"|string, "summary": string,
   *  "details"?: any}: the agent waits for a decision (answered through send_input). */
  AGENTRY_EVENT_APPROVAL_REQUEST = 6,
  /* {"inputTokens"?: int, "outputTokens"?: int, "cachedInputTokens"?: int,
   *  "reasoningTokens"?: int, "model"?: string}: the tokens used since the previous
   * usage event of the same attempt (an increment, never a running total); the host
   * sums them per run, session, attempt, model and day. cachedInputTokens are counted
   * apart from inputTokens. "model" names the model that used them when the backend
   * knows it; without it the host counts them for the run's configured model. */
  AGENTRY_EVENT_USAGE = 7,
  /* {"level": "info"|"warning"|"error", "message": string}: anything worth showing. */
  AGENTRY_EVENT_NOTICE = 8,
  /* {"resumeToken": string}: the backend's own session id (a Codex thread id, a Claude
   * session id). The host stores it on the session and passes it to a later start. */
  AGENTRY_EVENT_CHECKPOINT = 9,
  /* {"outcome": "success"|"error"|"interrupted", "message"?: string, "exitCode"?: int}:
   * the attempt is over ("detached" too, after ext/detach.h's detach()). Must carry
   * AGENTRY_EVENT_FLAG_TERMINAL; nothing may follow. */
  AGENTRY_EVENT_FINISHED = 10,
  /* Since 1.1. {"text": string, "itemId"?: string}: a piece of reasoning as it streams
   * (usually ephemeral; the REASONING that follows carries the whole text). */
  AGENTRY_EVENT_REASONING_DELTA = 11,
  /* Since 1.1. {"toolCallId": string, "text": string}: output of a running tool call as it
   * streams (usually ephemeral; TOOL_COMPLETED carries the whole output). */
  AGENTRY_EVENT_TOOL_OUTPUT_DELTA = 12,
  /* Since 1.1. {"steps": [{"step": string, "status": "pending"|"in_progress"|"completed"}],
   * "explanation"?: string}: the agent's plan, whole; each one replaces the last. */
  AGENTRY_EVENT_PLAN = 13,
  /* Since 1.1. {"diff": string, "truncated"?: bool}: the unified diff of the files the
   * agent changed in this attempt so far, whole; each one replaces the last. */
  AGENTRY_EVENT_DIFF = 14,
  /* Since 1.2. A browser's live view, always flagged EPHEMERAL (the host keeps each
   * run's latest one in memory, never in the timeline). Either a frame
   *   {"mime": "image/jpeg", "data": string (base64), "width"?: int, "height"?: int,
   *    "url"?: string}
   * or, when there is nothing to show, why:
   *   {"status": "unavailable", "reason": string}.
   * A plugin sends at most a few per second and only to a host of minor 2 or later. */
  AGENTRY_EVENT_BROWSER_FRAME = 15
};

enum {
  /* Stream to live clients but do not persist (token deltas). The completed message
   * that follows carries the whole text. */
  AGENTRY_EVENT_FLAG_EPHEMERAL = 1u << 0,
  /* The last event of this attempt. Only AGENTRY_EVENT_FINISHED may carry it. */
  AGENTRY_EVENT_FLAG_TERMINAL = 1u << 1
};

/* Largest payload the host accepts; emit answers AGENTRY_ERR_TOO_LARGE above it. */
#define AGENTRY_EVENT_MAX_PAYLOAD_BYTES (1024u * 1024u)

typedef struct agentry_event {
  uint32_t struct_size; /* sizeof(agentry_event_t) as the plugin was built */
  uint16_t type;        /* AGENTRY_EVENT_* */
  uint16_t reserved;    /* 0 */
  uint32_t flags;       /* AGENTRY_EVENT_FLAG_* */
  uint64_t seq;         /* strictly increasing per backend instance, starting at 1 */
  int64_t time_ns;      /* the plugin's monotonic clock; the host adds wall-clock time */
  /* A JSON object, UTF-8, `payload_size` bytes (no terminating NUL needed).
   * Borrowed for the duration of emit() only: the host copies it. */
  const char* payload_json;
  uint64_t payload_size;
} agentry_event_t;

#ifdef __cplusplus
}
#endif

#endif /* AGENTRY_PLUGIN_EVENTS_H */
