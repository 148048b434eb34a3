// The list view: runs grouped by status (pinned first), one fixed-height virtual list.

import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { BoardRow } from '../../lib/board';
import { scrollRowIntoView, VirtualList } from '../VirtualList';
import { BoardItem, itemProps, type ItemContext } from './BoardItem';

export const ROW_H = 48;
/** One line per run (the compact density). */
export const COMPACT_ROW_H = 32;

export function BoardList({ rows, ctx, empty, compact = false }: { rows: BoardRow[]; ctx: ItemContext; empty: ComponentChildren; compact?: boolean }) {
  const rowH = compact ? COMPACT_ROW_H : ROW_H;
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const i = rows.findIndex((r) => r.type === 'run' && r.run.runId === ctx.cursorId);
    if (i >= 0) scrollRowIntoView(scroller.current, i, rowH);
  }, [ctx.cursorId, rowH]);
  return (
    <VirtualList
      class={compact ? 'board-list compact' : 'board-list'}
      scrollerRef={scroller}
      count={rows.length}
      estimate={rowH}
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
        return <BoardItem {...itemProps(ctx, r.run)} />;
      }}
      empty={empty}
    />
  );
}
