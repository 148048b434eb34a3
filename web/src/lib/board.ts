// The board's rows: which runs the filters let through, how they are sorted, and how
// they are grouped in the list view (the columns view is boardColumns.ts).

import { STATUSES, type RunSummary } from './types';

export interface BoardFilters {
  text: string;
  status: string;
  agent: string;
  assignment: string;
  group: string;
  archived: boolean;
  /** The run's repository (its git work tree), or its cwd when it has none. */
  repo: string;
  backend: string;
  /** Only pinned runs. */
  pinned: boolean;
  /** Only runs with a note. */
  notes: boolean;
}

export const NO_FILTERS: BoardFilters = {
  text: '',
  status: '',
  agent: '',
  assignment: '',
  group: '',
  archived: false,
  repo: '',
  backend: '',
  pinned: false,
  notes: false,
};

/** Filters read back from storage, each field checked: anything else is no filter. */
export function filtersFrom(value: unknown): BoardFilters {
  const out: BoardFilters = { ...NO_FILTERS };
  if (typeof value !== 'object' || value === null) return out;
  const v = value as Record<string, unknown>;
  for (const key of ['text', 'status', 'agent', 'assignment', 'group', 'repo', 'backend'] as const)
    if (typeof v[key] === 'string') out[key] = (v[key] as string).slice(0, 500);
  for (const key of ['archived', 'pinned', 'notes'] as const) if (typeof v[key] === 'boolean') out[key] = v[key] as boolean;
  return out;
}

export const SORTS = ['updated', 'created', 'name', 'status'] as const;
export type BoardSort = (typeof SORTS)[number];

export type BoardRow = { type: 'group'; label: string; count: number } | { type: 'run'; run: RunSummary };

/** Where a run works: its repository when it is in one, else its cwd. */
export function repoOf(r: RunSummary): string {
  return r.repo || r.cwd || '';
}

export function matches(r: RunSummary, f: BoardFilters): boolean {
  if (!f.archived && r.archived) return false;
  if (f.status && r.status !== f.status) return false;
  if (f.agent && r.agent !== f.agent) return false;
  if (f.assignment && (r.assignment ?? '') !== f.assignment) return false;
  if (f.group && r.runGroupId !== f.group) return false;
  if (f.repo && repoOf(r) !== f.repo) return false;
  if (f.backend && r.backend !== f.backend) return false;
  if (f.pinned && !r.pinned) return false;
  if (f.notes && !r.notePresent) return false;
  if (f.text) {
    const hay = [r.runId, r.name, r.agent, r.assignment, r.cwd, r.repo, r.statusReason, r.activeTask?.title, r.runGroupId, r.model, r.backend]
      .filter(Boolean)
      .join(' ')
      .toLowerCase();
    for (const word of f.text.toLowerCase().split(/\s+/).filter(Boolean)) if (!hay.includes(word)) return false;
  }
  return true;
}

const statusRank = (s: string) => {
  const i = (STATUSES as readonly string[]).indexOf(s);
  return i < 0 ? STATUSES.length : i;
};
const newest = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);
const byId = (a: RunSummary, b: RunSummary) => (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0);

/** The comparator of a sort: newest updated or created first, names A to Z (unnamed last), or by status; ties by id. */
export function comparator(sort: BoardSort): (a: RunSummary, b: RunSummary) => number {
  switch (sort) {
    case 'updated':
      return (a, b) => newest(a.updatedAt, b.updatedAt) || newest(a.createdAt, b.createdAt) || byId(a, b);
    case 'name':
      return (a, b) => {
        const x = (a.name || '').toLowerCase();
        const y = (b.name || '').toLowerCase();
        if (!x !== !y) return x ? -1 : 1;
        return x < y ? -1 : x > y ? 1 : byId(a, b);
      };
    case 'status':
      return (a, b) => statusRank(a.status) - statusRank(b.status) || newest(a.updatedAt, b.updatedAt) || byId(a, b);
    default:
      return (a, b) => newest(a.createdAt, b.createdAt) || byId(a, b);
  }
}

/** Rows of the list view: a pinned section, then one section per status, each in the chosen order. */
export function boardRows(runs: Iterable<RunSummary>, f: BoardFilters, sort: BoardSort = 'created'): BoardRow[] {
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
  const cmp = comparator(sort);
  const rows: BoardRow[] = [];
  const section = (label: string, list: RunSummary[]) => {
    if (!list.length) return;
    list.sort(cmp);
    rows.push({ type: 'group', label, count: list.length });
    for (const run of list) rows.push({ type: 'run', run });
  };
  section('pinned', pinned);
  for (const s of STATUSES) section(s, by.get(s) ?? []);
  for (const [s, l] of by) if (!(STATUSES as readonly string[]).includes(s)) section(s, l);
  return rows;
}

export interface FilterOptions {
  agents: string[];
  assignments: string[];
  groups: string[];
  repos: string[];
  backends: string[];
}

/** The choices of the select filters: what the runs held use, sorted. */
export function filterOptions(runs: Iterable<RunSummary>): FilterOptions {
  const agents = new Set<string>();
  const assignments = new Set<string>();
  const groups = new Set<string>();
  const repos = new Set<string>();
  const backends = new Set<string>();
  for (const r of runs) {
    agents.add(r.agent);
    if (r.assignment) assignments.add(r.assignment);
    if (r.runGroupId && r.runGroupId !== r.runId) groups.add(r.runGroupId);
    const repo = repoOf(r);
    if (repo) repos.add(repo);
    if (r.backend) backends.add(r.backend);
  }
  const sorted = (s: Set<string>) => [...s].sort();
  return { agents: sorted(agents), assignments: sorted(assignments), groups: sorted(groups), repos: sorted(repos), backends: sorted(backends) };
}
