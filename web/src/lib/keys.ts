// The dashboard's key bindings, listed once: the views that handle them and the help
// sheet (views/app/KeyHelp.tsx, opened with `?`) read the same table. The single-key
// bindings are the user's to change (kept in preferences as `keys`).

/** The bindings a user may change: each one printable key (docs/dashboard.md, Keyboard). */
export type RebindableId =
  | 'board.filter'
  | 'board.next'
  | 'board.prev'
  | 'board.left'
  | 'board.right'
  | 'board.pick'
  | 'board.menu'
  | 'diff.next'
  | 'diff.prev';

export type KeyMap = Record<RebindableId, string>;

export const DEFAULT_KEYS: KeyMap = {
  'board.filter': '/',
  'board.next': 'j',
  'board.prev': 'k',
  'board.left': 'h',
  'board.right': 'l',
  'board.pick': 'x',
  'board.menu': 'm',
  'diff.next': 'n',
  'diff.prev': 'p',
};

export const REBINDABLE = Object.keys(DEFAULT_KEYS) as RebindableId[];

export interface KeyBinding {
  /** Set when the first key is the user's to change. */
  id?: RebindableId;
  keys: string[];
  where: 'Anywhere' | 'Board' | 'Diff';
  what: string;
}

/** Every binding as the help sheet lists it, with the user's keys in place of the defaults. */
export function keyBindings(k: KeyMap = DEFAULT_KEYS): KeyBinding[] {
  return [
    { keys: ['?'], where: 'Anywhere', what: 'Show or hide this list' },
    { keys: ['Esc'], where: 'Anywhere', what: 'Leave the field being typed in; then back to the board' },
    { id: 'board.filter', keys: [k['board.filter']], where: 'Board', what: 'Filter runs by text' },
    { id: 'board.next', keys: [k['board.next'], '↓'], where: 'Board', what: 'Select the next run' },
    { id: 'board.prev', keys: [k['board.prev'], '↑'], where: 'Board', what: 'Select the previous run' },
    { id: 'board.left', keys: [k['board.left'], '←'], where: 'Board', what: 'Move to the previous column (columns view)' },
    { id: 'board.right', keys: [k['board.right'], '→'], where: 'Board', what: 'Move to the next column (columns view)' },
    { keys: ['Enter'], where: 'Board', what: 'Open the selected run' },
    { id: 'diff.next', keys: [k['diff.next'], ']'], where: 'Diff', what: 'Jump to the next file' },
    { id: 'diff.prev', keys: [k['diff.prev'], '['], where: 'Diff', what: 'Jump to the previous file' },
    { id: 'board.pick', keys: [k['board.pick']], where: 'Board', what: 'Pick or unpick the selected run for bulk actions' },
    {
      keys: [k['board.next'].toUpperCase(), k['board.prev'].toUpperCase()],
      where: 'Board',
      what: 'Move and pick (shift with the next/previous keys or the arrows)',
    },
    { keys: ['Ctrl+A'], where: 'Board', what: 'Pick every run shown' },
    { id: 'board.menu', keys: [k['board.menu']], where: 'Board', what: "Open the selected run's action menu" },
    { keys: ['Esc'], where: 'Board', what: 'Clear the picked runs, close a menu' },
  ];
}

/** The default bindings (the sheet's table before any change). */
export const KEY_BINDINGS: KeyBinding[] = keyBindings();

const scopeOf = (id: RebindableId) => id.slice(0, id.indexOf('.'));
// Keys the views use that no binding may take: the sheet's, the diff's fixed file jumps.
const RESERVED = new Set(['?', '[', ']']);

/** Why `key` cannot be `id`'s key given the others in `current`; null when it can. */
export function rebindingProblem(id: RebindableId, key: string, current: KeyMap): string | null {
  if ([...key].length !== 1 || key.trim() === '') return 'press one printable key (not a space)';
  if (key !== key.toLowerCase()) return 'use a lower-case key: with Shift, the board moves and picks';
  if (RESERVED.has(key)) return `${key} is taken by the dashboard`;
  for (const other of REBINDABLE)
    if (other !== id && scopeOf(other) === scopeOf(id) && current[other] === key) return `${key} already does: ${other}`;
  return null;
}

/** The stored changes, each checked; a key that no longer fits falls back to its default. */
export function keyMapFrom(stored: unknown): KeyMap {
  const out: KeyMap = { ...DEFAULT_KEYS };
  if (typeof stored !== 'object' || stored === null) return out;
  for (const id of REBINDABLE) {
    const key = (stored as Record<string, unknown>)[id];
    if (typeof key === 'string' && !rebindingProblem(id, key, { ...out, [id]: DEFAULT_KEYS[id] })) out[id] = key;
  }
  // Two stored keys may still clash with each other: the later one yields.
  for (const id of REBINDABLE) if (rebindingProblem(id, out[id], out)) out[id] = DEFAULT_KEYS[id];
  return out;
}

/** Whether a key event comes from a place where the user is typing text. */
export function isTyping(target: EventTarget | null): boolean {
  const t = target as HTMLElement | null;
  return !!t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable === true);
}
