// The board: every run, grouped by status (pinned first), filtered, virtualised, walked
// with j/k (or the arrows) and opened with Enter.

import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { boardRows, filterOptions, type BoardFilters } from '../../lib/board';
import { isTyping } from '../../lib/keys';
import { loadPreferences, savePreferences } from '../../lib/preferences';
import { navigate } from '../../lib/router';
import { runPath } from '../../lib/route';
import { useSummaries } from '../../lib/useSummaries';
import { scrollRowIntoView, VirtualList } from '../VirtualList';
import { FilterBar } from './FilterBar';
import { RunRow } from './RunRow';

const ROW_H = 48;

// Kept while the page lives, so coming back from a run finds the board as it was left;
// the filters are also kept in the browser's preferences (lib/preferences.ts) for the
// next visit.
let savedFilters: BoardFilters | null = null;
let savedSelected: string | null = null;

export function Board() {
  const store = useSummaries();
  const [f, setFilters] = useState<BoardFilters>(() => savedFilters ?? loadPreferences().boardFilters);
  const setF = (next: BoardFilters) => {
    savedFilters = next;
    setFilters(next);
    savePreferences({ boardFilters: next });
  };
  const [selectedId, setSelectedId] = useState<string | null>(savedSelected);
  const textRef = useRef<HTMLInputElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  savedSelected = selectedId;

  const rows = useMemo(() => boardRows(store.runs.values(), f), [store.version, f]);
  const options = useMemo(() => filterOptions(store.runs.values()), [store.version]);

  const runIndexes = useMemo(() => rows.flatMap((r, i) => (r.type === 'run' ? [i] : [])), [rows]);
  const selected = useMemo(() => (selectedId === null ? -1 : rows.findIndex((r) => r.type === 'run' && r.run.runId === selectedId)), [rows, selectedId]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      const typing = isTyping(t);
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

  const shown = rows.length - rows.filter((r) => r.type === 'group').length;
  return (
    <section class="board" data-testid="board">
      <FilterBar filters={f} onChange={setF} options={options} textRef={textRef} shown={shown} total={store.runs.size} />
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
