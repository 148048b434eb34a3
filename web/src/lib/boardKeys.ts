// The board's keyboard: which command a key press is, and where the cursor goes. The
// board is laid out as columns of run ids (the list view is one column), so the same
// moves work in both views: j/k within a column, h/l between columns (or the keys the
// user chose instead, lib/keys.ts).

import { DEFAULT_KEYS, type KeyMap, type RebindableId } from './keys';

export type BoardCommand =
  | { type: 'move'; rows: number; columns: number; extend: boolean }
  | { type: 'toggle' }
  | { type: 'open' }
  | { type: 'menu' }
  | { type: 'all' }
  | { type: 'clear' };

export interface KeyPress {
  key: string;
  shiftKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
}

/** The command of a key press outside a text field; null when the board does not handle it. */
export function boardCommand(e: KeyPress, keys: KeyMap = DEFAULT_KEYS): BoardCommand | null {
  if (e.altKey) return null;
  if (e.ctrlKey || e.metaKey) return e.key === 'a' || e.key === 'A' ? { type: 'all' } : null;
  const extend = !!e.shiftKey;
  const is = (id: RebindableId) => e.key === keys[id] || (extend && e.key === keys[id].toUpperCase());
  if (e.key === 'ArrowDown' || is('board.next')) return { type: 'move', rows: 1, columns: 0, extend };
  if (e.key === 'ArrowUp' || is('board.prev')) return { type: 'move', rows: -1, columns: 0, extend };
  if (e.key === 'ArrowRight' || e.key === keys['board.right']) return { type: 'move', rows: 0, columns: 1, extend: false };
  if (e.key === 'ArrowLeft' || e.key === keys['board.left']) return { type: 'move', rows: 0, columns: -1, extend: false };
  if (e.key === keys['board.pick']) return { type: 'toggle' };
  if (e.key === keys['board.menu']) return { type: 'menu' };
  if (e.key === 'Enter') return { type: 'open' };
  if (e.key === 'Escape') return { type: 'clear' };
  return null;
}

/** The run the cursor moves to: rows within its column (clamped), columns to the next one holding runs. */
export function moveCursor(layout: readonly (readonly string[])[], cursor: string | null, rows: number, columns: number): string | null {
  let ci = -1;
  let ri = -1;
  if (cursor !== null) {
    for (let c = 0; c < layout.length && ci < 0; c++) {
      const i = layout[c].indexOf(cursor);
      if (i >= 0) [ci, ri] = [c, i];
    }
  }
  if (ci < 0) {
    const first = layout.find((c) => c.length > 0);
    return first ? first[0] : null;
  }
  if (columns !== 0) {
    for (let c = ci + Math.sign(columns); c >= 0 && c < layout.length; c += Math.sign(columns)) {
      if (layout[c].length) return layout[c][Math.min(ri, layout[c].length - 1)];
    }
    return cursor;
  }
  const col = layout[ci];
  return col[Math.max(0, Math.min(col.length - 1, ri + rows))];
}
