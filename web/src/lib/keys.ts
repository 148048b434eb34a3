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
  { keys: ['Enter'], where: 'Board', what: 'Open the selected run' },
  { keys: [']', 'n'], where: 'Diff', what: 'Jump to the next file' },
  { keys: ['[', 'p'], where: 'Diff', what: 'Jump to the previous file' },
];

/** Whether a key event comes from a place where the user is typing text. */
export function isTyping(target: EventTarget | null): boolean {
  const t = target as HTMLElement | null;
  return !!t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable === true);
}
