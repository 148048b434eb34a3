// What can be done to runs from the board (a card's menu, the bulk bar) and the API
// calls that do it. Which actions a run allows comes from runActions.ts, the same rules
// the run view's buttons follow, computed from the capabilities the daemon sends.

import { api, errorText } from './api';
import { runActions, sendModes } from './runActions';
import type { RunSummary } from './types';

export type BoardAction = 'start' | 'resume' | 'abort' | 'archive' | 'unarchive' | 'pin' | 'unpin';

export const BOARD_ACTIONS: readonly BoardAction[] = ['start', 'resume', 'abort', 'archive', 'unarchive', 'pin', 'unpin'];

const LABELS: Record<BoardAction, string> = {
  start: 'Start',
  resume: 'Resume',
  abort: 'Abort',
  archive: 'Archive',
  unarchive: 'Unarchive',
  pin: 'Pin',
  unpin: 'Unpin',
};

export const boardActionLabel = (a: BoardAction) => LABELS[a];

/** The actions a run's card offers, in the run view's order; pin reads unpin on a pinned run. */
export function cardActions(run: Pick<RunSummary, 'status' | 'capabilities' | 'damaged' | 'pinned' | 'archived'>): BoardAction[] {
  const out: BoardAction[] = [];
  // Start and resume carry no message from the board; the composer's rules say when.
  const send = sendModes(run);
  if (send.allowed.includes('resume')) out.push(send.starts ? 'start' : 'resume');
  for (const a of runActions(run)) {
    if (a === 'pin') out.push(run.pinned ? 'unpin' : 'pin');
    else if ((BOARD_ACTIONS as readonly string[]).includes(a)) out.push(a as BoardAction);
  }
  return out;
}

/** The bulk actions for a selection: each action some selected run allows, with how many allow it. */
export function bulkActions(runs: readonly RunSummary[]): { action: BoardAction; count: number }[] {
  const counts = new Map<BoardAction, number>();
  for (const r of runs) for (const a of cardActions(r)) counts.set(a, (counts.get(a) ?? 0) + 1);
  return BOARD_ACTIONS.filter((a) => counts.has(a)).map((action) => ({ action, count: counts.get(action)! }));
}

/** The request that does `a` to a run (docs/api.md, Runs). */
export function actionRequest(a: BoardAction, runId: string): { path: string; body: Record<string, unknown> } {
  const base = `api/runs/${encodeURIComponent(runId)}/`;
  switch (a) {
    case 'start':
    case 'resume':
      return { path: base + 'resume', body: {} };
    case 'pin':
    case 'unpin':
      return { path: base + 'pinned', body: { pinned: a === 'pin' } };
    default:
      return { path: base + a, body: {} };
  }
}

export type Post = (path: string, body: unknown) => Promise<unknown>;
const post: Post = (path, body) => api(path, { method: 'POST', body });

export interface ActionOutcome {
  done: string[];
  /** Runs the daemon refused, with its error's message. */
  failed: { runId: string; message: string }[];
  /** Runs that do not allow the action (not sent). */
  skipped: string[];
}

/**
 * Does `a` to each run that allows it, a few requests at a time; the board learns the
 * new state from the summary stream, so nothing is returned but the outcome.
 */
export async function applyAction(runs: readonly RunSummary[], a: BoardAction, send: Post = post, parallel = 4): Promise<ActionOutcome> {
  const out: ActionOutcome = { done: [], failed: [], skipped: [] };
  const todo = runs.filter((r) => {
    const ok = cardActions(r).includes(a);
    if (!ok) out.skipped.push(r.runId);
    return ok;
  });
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const r = todo[next++];
      const { path, body } = actionRequest(a, r.runId);
      try {
        await send(path, body);
        out.done.push(r.runId);
      } catch (e) {
        out.failed.push({ runId: r.runId, message: errorText(e) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, todo.length) }, worker));
  return out;
}

/** One line about an outcome for the user, or null when everything went through. */
export function outcomeText(a: BoardAction, o: ActionOutcome): string | null {
  if (!o.failed.length) return null;
  const first = o.failed[0];
  const more = o.failed.length > 1 ? ` (and ${o.failed.length - 1} more)` : '';
  return `${boardActionLabel(a)} failed for ${first.runId}: ${first.message}${more}`;
}
