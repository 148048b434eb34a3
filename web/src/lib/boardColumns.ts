// The board's columns view: each run in the column of what it asks of the user.
// Ready: never ran (initialized, ready). Running. Needs you: stopped with work left that
// someone has to look at (a task blocked, attempts exhausted), a run whose agent waits on
// an approval (pendingApprovalCount), or a damaged run. Done: success. Failed: error or
// aborted.

import { comparator, matches, type BoardFilters, type BoardSort } from './board';
import type { RunSummary } from './types';

export const COLUMNS = [
  { id: 'ready', label: 'Ready', statuses: ['initialized', 'ready'] },
  { id: 'running', label: 'Running', statuses: ['running'] },
  { id: 'needs-you', label: 'Needs you', statuses: ['blocked', 'exhausted'] },
  { id: 'done', label: 'Done', statuses: ['success'] },
  { id: 'failed', label: 'Failed', statuses: ['error', 'aborted'] },
] as const;

export type ColumnId = (typeof COLUMNS)[number]['id'];

export interface BoardColumn {
  id: ColumnId;
  label: string;
  runs: RunSummary[];
}

/** The column of a run; a damaged run or a status this dashboard does not know needs the user. */
export function columnOf(r: Pick<RunSummary, 'status' | 'damaged'> & { pendingApprovalCount?: number }): ColumnId {
  if (r.damaged || (r.pendingApprovalCount ?? 0) > 0) return 'needs-you';
  for (const c of COLUMNS) if ((c.statuses as readonly string[]).includes(r.status)) return c.id;
  return 'needs-you';
}

/** The columns, each with the runs the filters let through: pinned first, then in the chosen order. */
export function boardColumns(runs: Iterable<RunSummary>, f: BoardFilters, sort: BoardSort): BoardColumn[] {
  const by = new Map<ColumnId, RunSummary[]>(COLUMNS.map((c) => [c.id, []]));
  for (const r of runs) if (matches(r, f)) by.get(columnOf(r))!.push(r);
  const cmp = comparator(sort);
  const pinnedFirst = (a: RunSummary, b: RunSummary) => (a.pinned === b.pinned ? cmp(a, b) : a.pinned ? -1 : 1);
  return COLUMNS.map((c) => ({ id: c.id, label: c.label, runs: by.get(c.id)!.sort(pinnedFirst) }));
}
