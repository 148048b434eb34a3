// One run in the list view: pick box, the run's row (RunRow, a link to the run) and its
// action menu. Shift-click on the row picks the range instead of opening a window.

import type { BoardAction } from '../../lib/boardActions';
import type { RunSummary } from '../../lib/types';
import { CardMenu } from './CardMenu';
import { PickBox } from './PickBox';
import { RunRow } from './RunRow';

export interface ItemProps {
  run: RunSummary;
  cursor: boolean;
  picked: boolean;
  menuOpen: boolean;
  busy: boolean;
  onPick: (runId: string, range: boolean) => void;
  onMenu: (runId: string | null) => void;
  onAction: (a: BoardAction, run: RunSummary) => void;
}

export function BoardItem({ run, cursor, picked, menuOpen, busy, onPick, onMenu, onAction }: ItemProps) {
  return (
    <div
      class={'board-item' + (picked ? ' picked' : '')}
      onClickCapture={(e) => {
        if (!e.shiftKey || (e.target as HTMLElement).closest('input,button')) return;
        e.preventDefault();
        e.stopPropagation();
        onPick(run.runId, true);
      }}
    >
      <PickBox runId={run.runId} picked={picked} onPick={onPick} />
      <RunRow run={run} selected={cursor} />
      <CardMenu run={run} open={menuOpen} busy={busy} onOpen={(o) => onMenu(o ? run.runId : null)} onAction={onAction} />
    </div>
  );
}

/** What the board hands every item: the cursor, the selection, the open menu and the handlers. */
export interface ItemContext {
  cursorId: string | null;
  picked: ReadonlySet<string>;
  menuFor: string | null;
  busy: boolean;
  onPick: (runId: string, range: boolean) => void;
  onMenu: (runId: string | null) => void;
  onAction: (a: BoardAction, run: RunSummary) => void;
}

export function itemProps(ctx: ItemContext, run: RunSummary): ItemProps {
  return {
    run,
    cursor: ctx.cursorId === run.runId,
    picked: ctx.picked.has(run.runId),
    menuOpen: ctx.menuFor === run.runId,
    busy: ctx.busy,
    onPick: ctx.onPick,
    onMenu: ctx.onMenu,
    onAction: ctx.onAction,
  };
}
