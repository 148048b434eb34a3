// The board's rows: which runs the filters let through, and how they are grouped.

import { STATUSES, type RunSummary } from './types';

export interface BoardFilters {
  text: string;
  status: string;
  agent: string;
  assignment: string;
  group: string;
  archived: boolean;
}

export const NO_FILTERS: BoardFilters = { text: '', status: '', agent: '', assignment: '', group: '', archived: false };

export type BoardRow = { type: 'group'; label: string; count: number } | { type: 'run'; run: RunSummary };

export function matches(r: RunSummary, f: BoardFilters): boolean {
  if (!f.archived && r.archived) return false;
  if (f.status && r.status !== f.status) return false;
  if (f.agent && r.agent !== f.agent) return false;
  if (f.assignment && (r.assignment ?? '') !== f.assignment) return false;
  if (f.group && r.runGroupId !== f.group) return false;
  if (f.text) {
    const hay = [r.runId, r.name, r.agent, r.assignment, r.cwd, r.statusReason, r.activeTask?.title, r.runGroupId, r.model, r.backend]
      .filter(Boolean)
      .join(' ')
      .toLowerCase();
    for (const word of f.text.toLowerCase().split(/\s+/).filter(Boolean)) if (!hay.includes(word)) return false;
  }
  return true;
}

/** Rows of the board: a pinned section, then one section per status, newest first within each. */
export function boardRows(runs: Iterable<RunSummary>, f: BoardFilters): BoardRow[] {
  const pinned: RunSummary[] = [];
  const by = new Map<string, RunSummary[]>();
  for (const r of runs) {
    if (!matches(r, f)) continue;
    if (r.pinned) pinned.push(r);
    else {
      let l = by.get(r.status);
      if (!l) by.set(r.status, (l = []));
      l.push(r);
    }
  }
  const newest = (a: RunSummary, b: RunSummary) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.runId < b.runId ? 1 : -1);
  const rows: BoardRow[] = [];
  const section = (label: string, list: RunSummary[]) => {
    if (!list.length) return;
    list.sort(newest);
    rows.push({ type: 'group', label, count: list.length });
    for (const run of list) rows.push({ type: 'run', run });
  };
  section('pinned', pinned);
  for (const s of STATUSES) section(s, by.get(s) ?? []);
  for (const [s, l] of by) if (!(STATUSES as readonly string[]).includes(s)) section(s, l);
  return rows;
}

/** The choices of the agent, assignment and group filters: what the runs held use, sorted. */
export function filterOptions(runs: Iterable<RunSummary>): { agents: string[]; assignments: string[]; groups: string[] } {
  const agents = new Set<string>();
  const assignments = new Set<string>();
  const groups = new Set<string>();
  for (const r of runs) {
    agents.add(r.agent);
    if (r.assignment) assignments.add(r.assignment);
    if (r.runGroupId && r.runGroupId !== r.runId) groups.add(r.runGroupId);
  }
  return { agents: [...agents].sort(), assignments: [...assignments].sort(), groups: [...groups].sort() };
}
