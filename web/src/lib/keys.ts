// The dashboard's key bindings, listed once: the views that handle them and the help
// sheet (views/app/KeyHelp.tsx, opened with `?`) read the same table.

export interface KeyBinding {
  keys: string[];
  where: 'Anywhere' | 'Board' | 'Diff';
  what: string;
}

export const KEY_BINDINGS: KeyBinding[] = [
  { keys: ['?'], where: 'Anywhere', what: 'Show or hide this list' },
  { keys: ['Esc'], where: 'Anywhere', what: 'Leave the field being typed in; then back to the board' },
  { keys: ['/'], where: 'Board', what: 'Filter runs by text' },
  { keys: ['j', '↓'], where: 'Board', what: 'Select the next run' },
  { keys: ['k', '↑'], where: 'Board', what: 'Select the previous run' },
  { keys: ['h', 'l', '←', '→'], where: 'Board', what: 'Move to the previous or next column (columns view)' },
  { keys: ['Enter'], where: 'Board', what: 'Open the selected run' },
  { keys: [']', 'n'], where: 'Diff', what: 'Jump to the next file' },
  { keys: ['[', 'p'], where: 'Diff', what: 'Jump to the previous file' },
  { keys: ['x'], where: 'Board', what: 'Pick or unpick the selected run for bulk actions' },
  { keys: ['J', 'K'], where: 'Board', what: 'Move and pick (shift with j, k or the arrows)' },
  { keys: ['Ctrl+A'], where: 'Board', what: 'Pick every run shown' },
  { keys: ['m'], where: 'Board', what: "Open the selected run's action menu" },
  { keys: ['Esc'], where: 'Board', what: 'Clear the picked runs, close a menu' },
];

/** Whether a key event comes from a place where the user is typing text. */
export function isTyping(target: EventTarget | null): boolean {
  const t = target as HTMLElement | null;
  return !!t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable === true);
}
