// The board's keyboard: which command a key press is, and where the cursor goes. The
// board is laid out as columns of run ids (the list view is one column), so the same
// moves work in both views: j/k within a column, h/l between columns.

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
export function boardCommand(e: KeyPress): BoardCommand | null {
  if (e.altKey) return null;
  if (e.ctrlKey || e.metaKey) return e.key === 'a' || e.key === 'A' ? { type: 'all' } : null;
  const extend = !!e.shiftKey;
  switch (e.key) {
    case 'j':
    case 'J':
    case 'ArrowDown':
      return { type: 'move', rows: 1, columns: 0, extend };
    case 'k':
    case 'K':
    case 'ArrowUp':
      return { type: 'move', rows: -1, columns: 0, extend };
    case 'l':
    case 'ArrowRight':
      return { type: 'move', rows: 0, columns: 1, extend: false };
    case 'h':
    case 'ArrowLeft':
      return { type: 'move', rows: 0, columns: -1, extend: false };
    case 'x':
      return { type: 'toggle' };
    case 'Enter':
      return { type: 'open' };
    case 'm':
      return { type: 'menu' };
    case 'Escape':
      return { type: 'clear' };
    default:
      return null;
  }
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
