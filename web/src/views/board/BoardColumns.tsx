// The columns view: Ready, Running, Needs you, Done, Failed (lib/boardColumns.ts), each
// its own fixed-height virtual list. On a phone the columns scroll sideways, one at a time.

import { useEffect, useRef } from 'preact/hooks';
import type { BoardColumn } from '../../lib/boardColumns';
import { scrollRowIntoView, VirtualList } from '../VirtualList';
import { itemProps, type ItemContext } from './BoardItem';
import { CARD_H, RunCard } from './RunCard';

function Column({ column: c, ctx }: { column: BoardColumn; ctx: ItemContext }) {
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const i = c.runs.findIndex((r) => r.runId === ctx.cursorId);
    if (i < 0) return;
    scrollRowIntoView(scroller.current, i, CARD_H);
    scroller.current?.closest('.board-column')?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }, [ctx.cursorId]);
  return (
    <section class={'board-column col-' + c.id} data-testid="board-column" data-column={c.id} aria-label={c.label}>
      <header class="column-head">
        {c.label} <span class="muted" data-testid="column-count">{c.runs.length}</span>
      </header>
      <VirtualList
        class="column-list"
        scrollerRef={scroller}
        count={c.runs.length}
        estimate={CARD_H}
        fixed
        version={c.runs}
        keyOf={(i) => c.runs[i].runId}
        render={(i) => <RunCard {...itemProps(ctx, c.runs[i])} />}
        empty={<div class="empty muted small">No runs</div>}
      />
    </section>
  );
}

export function BoardColumns({ columns, ctx }: { columns: BoardColumn[]; ctx: ItemContext }) {
  return (
    <div class="board-columns" data-testid="board-columns">
      {columns.map((c) => (
        <Column key={c.id} column={c} ctx={ctx} />
      ))}
    </div>
  );
}
