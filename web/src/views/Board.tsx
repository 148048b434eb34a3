// The board: every run, grouped by status (pinned first), filtered, virtualised.

import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ago, usageText } from '../lib/format';
import { linkProps, navigate } from '../lib/router';
import { runPath } from '../lib/route';
import { summaries } from '../lib/summaries';
import { STATUSES, type RunSummary } from '../lib/types';
import { scrollRowIntoView, VirtualList } from './VirtualList';

const ROW_H = 48;

export interface BoardFilters {
  text: string;
  status: string;
  agent: string;
  assignment: string;
  group: string;
  archived: boolean;
}

type Row = { type: 'group'; label: string; count: number } | { type: 'run'; run: RunSummary };

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
export function boardRows(runs: Iterable<RunSummary>, f: BoardFilters): Row[] {
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
  const rows: Row[] = [];
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

function useStore() {
  const [, set] = useState(0);
  useEffect(() => summaries.subscribe(() => set((n) => n + 1)), []);
  return summaries;
}

let savedFilters: BoardFilters = { text: '', status: '', agent: '', assignment: '', group: '', archived: false };
let savedSelected: string | null = null;

export function Board() {
  const store = useStore();
  const [f, setF] = useState<BoardFilters>(savedFilters);
  const [selectedId, setSelectedId] = useState<string | null>(savedSelected);
  const textRef = useRef<HTMLInputElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  savedFilters = f;
  savedSelected = selectedId;

  const rows = useMemo(() => boardRows(store.runs.values(), f), [store.version, f]);
  const options = useMemo(() => {
    const agents = new Set<string>();
    const assignments = new Set<string>();
    const groups = new Set<string>();
    for (const r of store.runs.values()) {
      agents.add(r.agent);
      if (r.assignment) assignments.add(r.assignment);
      if (r.runGroupId && r.runGroupId !== r.runId) groups.add(r.runGroupId);
    }
    return { agents: [...agents].sort(), assignments: [...assignments].sort(), groups: [...groups].sort() };
  }, [store.version]);

  const runIndexes = useMemo(() => rows.flatMap((r, i) => (r.type === 'run' ? [i] : [])), [rows]);
  const selected = useMemo(() => (selectedId === null ? -1 : rows.findIndex((r) => r.type === 'run' && r.run.runId === selectedId)), [rows, selectedId]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      const typing = t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
      if (e.key === '/' && !typing) {
        e.preventDefault();
        textRef.current?.focus();
        return;
      }
      if (e.key === 'Escape' && t === textRef.current) {
        textRef.current?.blur();
        return;
      }
      if (typing || e.metaKey || e.ctrlKey || e.altKey) return;
      const pos = runIndexes.indexOf(selected);
      let next = -1;
      if (e.key === 'j' || e.key === 'ArrowDown') next = runIndexes[Math.min(runIndexes.length - 1, pos + 1)] ?? -1;
      else if (e.key === 'k' || e.key === 'ArrowUp') next = runIndexes[Math.max(0, pos < 0 ? 0 : pos - 1)] ?? -1;
      else if (e.key === 'Enter' && selected >= 0) {
        const r = rows[selected];
        if (r?.type === 'run') navigate(runPath(r.run.runId));
        return;
      } else return;
      e.preventDefault();
      if (next >= 0) {
        const row = rows[next];
        if (row.type === 'run') setSelectedId(row.run.runId);
        scrollRowIntoView(scroller.current, next, ROW_H);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [rows, runIndexes, selected]);

  const set = (k: keyof BoardFilters) => (e: Event) => {
    const el = e.currentTarget as HTMLInputElement;
    setF({ ...f, [k]: el.type === 'checkbox' ? el.checked : el.value });
  };

  const shown = rows.length - rows.filter((r) => r.type === 'group').length;
  return (
    <section class="board" data-testid="board">
      <div class="filters">
        <input ref={textRef} data-testid="filter-text" type="search" placeholder="Filter runs  ( / )" value={f.text} onInput={set('text')} aria-label="Filter runs" />
        <select data-testid="filter-status" value={f.status} onChange={set('status')} aria-label="Status">
          <option value="">all statuses</option>
          {STATUSES.map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
        <select data-testid="filter-agent" value={f.agent} onChange={set('agent')} aria-label="Agent">
          <option value="">all agents</option>
          {options.agents.map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
        <select data-testid="filter-assignment" value={f.assignment} onChange={set('assignment')} aria-label="Assignment">
          <option value="">all assignments</option>
          {options.assignments.map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
        <select data-testid="filter-group" value={f.group} onChange={set('group')} aria-label="Group">
          <option value="">all groups</option>
          {options.groups.map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
        <label class="check">
          <input type="checkbox" data-testid="filter-archived" checked={f.archived} onChange={set('archived')} /> archived
        </label>
        <span class="muted count" data-testid="board-count">
          {shown} of {store.runs.size}
        </span>
      </div>
      {store.error && <div class="error">Listing runs failed: {store.error}</div>}
      <VirtualList
        class="board-list"
        scrollerRef={scroller}
        count={rows.length}
        estimate={ROW_H}
        fixed
        version={rows}
        keyOf={(i) => {
          const r = rows[i];
          return r.type === 'group' ? 'g:' + r.label : r.run.runId;
        }}
        render={(i) => {
          const r = rows[i];
          if (r.type === 'group')
            return (
              <div class="group-head" data-testid="board-group" data-group={r.label}>
                <span class={'dot st-' + r.label} /> {r.label} <span class="muted">{r.count}</span>
              </div>
            );
          return <RunRow run={r.run} selected={i === selected} />;
        }}
        empty={<div class="empty">{store.loading ? 'Loading runs…' : 'No runs match.'}</div>}
      />
    </section>
  );
}

function RunRow({ run: r, selected }: { run: RunSummary; selected: boolean }) {
  const t = r.taskCounts;
  const activity = r.activeTask ? r.activeTask.title : r.statusReason;
  return (
    <a class={'run-row' + (selected ? ' selected' : '') + (r.archived ? ' archived' : '')} data-testid="run-row" data-run-id={r.runId} {...linkProps(runPath(r.runId))}>
      <span class={'status-chip st-' + r.status} data-testid="run-status">
        {r.status}
      </span>
      <span class="rr-main">
        <span class="rr-name">
          {r.pinned && <span class="pin" title="pinned">★ </span>}
          {r.name || r.runId}
          {r.name && <span class="muted mono"> {r.runId}</span>}
          {r.notePresent && (
            <span class="muted" title="has a note">
              {' '}
              ✎
            </span>
          )}
        </span>
        <span class="rr-sub muted">
          {r.agent}
          {r.assignment ? ' · ' + r.assignment : ''}
          {activity ? ' · ' + activity : ''}
        </span>
      </span>
      <span class="rr-meta">
        {t && t.total > 0 && (
          <span class="pill" data-testid="run-tasks" title={`${t.completed} of ${t.total} tasks completed`}>
            {t.completed}/{t.total}
          </span>
        )}
        {r.dependencyState && r.dependencyState.state !== 'none' && (
          <span class={'pill dep-' + r.dependencyState.state} title="dependencies">
            deps {r.dependencyState.satisfied}/{r.dependencyState.total}
          </span>
        )}
        {r.scheduleState && (
          <span class="pill" title={r.scheduleState.reason ?? ''}>
            sched {r.scheduleState.state}
            {r.scheduleState.nextAt ? ' ' + ago(r.scheduleState.nextAt) : ''}
          </span>
        )}
        {r.diffstat && r.diffstat.files > 0 && (
          <span class="pill mono">
            <span class="add">+{r.diffstat.additions}</span> <span class="del">−{r.diffstat.deletions}</span>
          </span>
        )}
        {usageText(r.usage) && (
          <span class="pill mono" data-testid="run-usage" title={(r.usage?.warnings ?? []).join('\n') || 'tokens used and their cost'}>
            {usageText(r.usage)}
          </span>
        )}
        {r.queuedMessageCount > 0 && <span class="pill">queued {r.queuedMessageCount}</span>}
        <span class="muted rr-time">{ago(r.updatedAt)}</span>
      </span>
    </a>
  );
}
