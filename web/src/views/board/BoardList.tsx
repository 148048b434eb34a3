// The list view: runs grouped by status (pinned first), one fixed-height virtual list.

import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { BoardRow } from '../../lib/board';
import { scrollRowIntoView, VirtualList } from '../VirtualList';
import { BoardItem, itemProps, type ItemContext } from './BoardItem';

export const ROW_H = 48;

export function BoardList({ rows, ctx, empty }: { rows: BoardRow[]; ctx: ItemContext; empty: ComponentChildren }) {
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const i = rows.findIndex((r) => r.type === 'run' && r.run.runId === ctx.cursorId);
    if (i >= 0) scrollRowIntoView(scroller.current, i, ROW_H);
  }, [ctx.cursorId]);
  return (
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
        return <BoardItem {...itemProps(ctx, r.run)} />;
      }}
      empty={empty}
    />
  );
}
