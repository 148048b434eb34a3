// Shapes of the daemon's answers the dashboard reads. They come from the API's OpenAPI
// document (docs/openapi.yaml, checked against the real daemon by
// tests/browser/openapi.test.mjs) through the generated api.gen.ts; this file gives
// them the names the dashboard uses.
import type * as Api from './api.gen';

export type Capabilities = Api.Capabilities;
export type SessionSummary = Api.SessionSummary;
export type UsageCounts = Api.TokenCounts & { costUsd: number | null };
export type RunUsage = Api.Usage;
export type RunSummary = Api.RunSummary;
export type Task = Api.Task;
export type QueuedMessage = Api.QueuedMessage;
export type PendingApproval = Api.PendingApproval;
export type Attachment = Api.Attachment;
export type RunDetail = Api.RunDetail;
/** Every answer's JSON body, by operation (`OperationAnswers['runs.list']`). */
export type { OperationAnswers } from './api.gen';

export const STATUSES = ['running', 'ready', 'initialized', 'blocked', 'error', 'exhausted', 'aborted', 'success'] as const satisfies readonly Api.RunStatus[];

/** How a member's heartbeat looks from the store (docs/scale-out.md#members). */
export type MemberState = Api.Member['state'];

/** One daemon serving the store, as GET /api/daemons lists it. */
export type Member = Api.Member;
