// The board: every run, filtered and sorted, as a list grouped by status or as status
// columns (both virtualised); walked with the keys of lib/boardKeys.ts; runs picked for
// bulk actions, and each run's own actions in its menu.

import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { boardRows, filterOptions, type BoardFilters, type BoardSort } from '../../lib/board';
import { applyAction, outcomeText, type BoardAction } from '../../lib/boardActions';
import { boardColumns } from '../../lib/boardColumns';
import { boardCommand, moveCursor } from '../../lib/boardKeys';
import { isTyping } from '../../lib/keys';
import { loadPreferences, savePreferences, type BoardView, type Density } from '../../lib/preferences';
import { navigate } from '../../lib/router';
import { runPath } from '../../lib/route';
import { pruned, toggled, withRange, type Selection } from '../../lib/selection';
import type { RunSummary } from '../../lib/types';
import { useSummaries } from '../../lib/useSummaries';
import type { ItemContext } from './BoardItem';
import { BoardColumns } from './BoardColumns';
import { BoardList } from './BoardList';
import { BoardToolbar } from './BoardToolbar';
import { BulkBar } from './BulkBar';
import { FilterBar } from './FilterBar';

// Kept while the page lives, so coming back from a run finds the board as it was left;
// filters, view and sort are also kept in the browser's preferences (lib/preferences.ts).
let saved: { filters: BoardFilters; view: BoardView; sort: BoardSort; density: Density } | null = null;
let savedCursor: string | null = null;
let savedPicked: Selection = new Set();

/** Forgets what the page kept (tests start each board afresh, from the preferences). */
export function forgetBoardState(): void {
  saved = null;
  savedCursor = null;
  savedPicked = new Set();
}

export function Board() {
  const store = useSummaries();
  const [prefs, setPrefs] = useState(() => {
    if (saved) return saved;
    const p = loadPreferences();
    return { filters: p.boardFilters, view: p.boardView, sort: p.boardSort, density: p.density };
  });
  saved = prefs;
  const change = (next: Partial<typeof prefs>) => {
    const p = { ...prefs, ...next };
    setPrefs(p);
    savePreferences({ boardFilters: p.filters, boardView: p.view, boardSort: p.sort, density: p.density });
  };
  const { filters: f, view, sort, density } = prefs;
  const [cursorId, setCursorId] = useState<string | null>(savedCursor);
  const [pickedAll, setPicked] = useState<Selection>(savedPicked);
  const [anchor, setAnchor] = useState<string | null>(null);
  const [menuFor, setMenuFor] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const textRef = useRef<HTMLInputElement>(null);
  savedCursor = cursorId;
  savedPicked = pickedAll;

  const rows = useMemo(() => (view === 'list' ? boardRows(store.runs.values(), f, sort) : []), [store.version, f, sort, view]);
  const columns = useMemo(() => (view === 'columns' ? boardColumns(store.runs.values(), f, sort) : []), [store.version, f, sort, view]);
  const options = useMemo(() => filterOptions(store.runs.values()), [store.version]);

  // The runs shown, as columns of ids (the list is one column): what the keys walk.
  const layout = useMemo(
    () => (view === 'list' ? [rows.flatMap((r) => (r.type === 'run' ? [r.run.runId] : []))] : columns.map((c) => c.runs.map((r) => r.runId))),
    [rows, columns, view],
  );
  const order = useMemo(() => layout.flat(), [layout]);
  const shownIds = useMemo(() => new Set(order), [order]);
  // Picked runs a filter hides are not acted on.
  const picked = pruned(pickedAll, shownIds);
  const pickedRuns = useMemo(() => [...picked].map((id) => store.runs.get(id)).filter((r): r is RunSummary => !!r), [picked, store.version]);

  // The key handler is registered once and reads the newest state here, which it also
  // updates itself: keys pressed faster than the board renders (j, then x) each see
  // what the one before did.
  const live = useRef({ cursor: cursorId, picked, anchor, menuFor, layout, order, shownIds });
  live.current = { cursor: cursorId, picked, anchor, menuFor, layout, order, shownIds };
  const pick = (next: Selection, newAnchor: string | null = live.current.anchor) => {
    live.current.picked = next;
    live.current.anchor = newAnchor;
    setPicked(next);
    setAnchor(newAnchor);
  };
  const onPick = (id: string, range: boolean) => {
    const s = live.current;
    pick(range ? withRange(s.picked, s.order, s.anchor, id) : toggled(s.picked, id), id);
  };

  const act = async (a: BoardAction, runs: RunSummary[]) => {
    setBusy(true);
    setActionError(null);
    const outcome = await applyAction(runs, a);
    setBusy(false);
    setActionError(outcomeText(a, outcome));
    if (!outcome.failed.length && runs.length > 1) pick(new Set());
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      // A pick box keeps the focus after a click: the board's keys still work there.
      const typing = isTyping(t) && !(t.tagName === 'INPUT' && (t as HTMLInputElement).type === 'checkbox');
      // Read at each press: the key sheet may have changed them since the board opened.
      const keys = loadPreferences().keys;
      if (e.key === keys['board.filter'] && !typing) {
        e.preventDefault();
        textRef.current?.focus();
        return;
      }
      if (e.key === 'Escape' && t === textRef.current) {
        textRef.current?.blur();
        return;
      }
      if (typing || e.defaultPrevented) return;
      const cmd = boardCommand(e, keys);
      if (!cmd) return;
      // Enter on a focused button or link is that control's, not the board's.
      if (cmd.type === 'open' && (t.tagName === 'BUTTON' || t.tagName === 'A')) return;
      const s = live.current;
      const cursor = s.cursor !== null && s.shownIds.has(s.cursor) ? s.cursor : null;
      if (cmd.type === 'move') {
        const next = moveCursor(s.layout, s.cursor, cmd.rows, cmd.columns);
        if (next === null) return;
        if (cmd.extend) pick(withRange(s.picked, s.order, cursor ?? next, next), next);
        s.cursor = next;
        setCursorId(next);
      } else if (cmd.type === 'all') {
        pick(new Set(s.order));
      } else if (cmd.type === 'clear') {
        if (!s.picked.size && s.menuFor === null) return;
        pick(new Set());
        s.menuFor = null;
        setMenuFor(null);
      } else if (cursor === null) {
        return;
      } else if (cmd.type === 'open') {
        navigate(runPath(cursor));
      } else if (cmd.type === 'toggle') {
        pick(toggled(s.picked, cursor), cursor);
      } else if (cmd.type === 'menu') {
        s.menuFor = cursor;
        setMenuFor(cursor);
      }
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const ctx: ItemContext = {
    cursorId,
    picked,
    menuFor,
    busy,
    onPick,
    onMenu: setMenuFor,
    onAction: (a, run) => void act(a, [run]),
  };
  const empty = <div class="empty">{store.loading ? 'Loading runs…' : 'No runs match.'}</div>;
  return (
    <section class={'board view-' + view} data-testid="board" data-view={view}>
      <FilterBar filters={f} onChange={(filters) => change({ filters })} options={options} textRef={textRef} shown={order.length} total={store.runs.size}>
        <BoardToolbar
          view={view}
          sort={sort}
          density={density}
          onView={(v) => change({ view: v })}
          onSort={(s) => change({ sort: s })}
          onDensity={(d) => change({ density: d })}
        />
      </FilterBar>
      {picked.size > 0 && (
        <BulkBar runs={pickedRuns} busy={busy} shown={order.length} onAction={(a) => void act(a, pickedRuns)} onClear={() => pick(new Set())} onAll={() => pick(new Set(order))} />
      )}
      {store.error && <div class="error">Listing runs failed: {store.error}</div>}
      {actionError && (
        <div class="error" data-testid="board-action-error">
          {actionError}
        </div>
      )}
      {view === 'list' ? <BoardList key={density} rows={rows} ctx={ctx} empty={empty} compact={density === 'compact'} /> : <BoardColumns columns={columns} ctx={ctx} />}
    </section>
  );
}
