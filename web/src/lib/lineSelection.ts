// Lines picked for review (a click on a line number, shift-click for a range) and the
// quote they become in a task or a message to the run: `path:start-end` and the lines
// in a fenced block.

import { diffPrefix, type DiffLine } from './diffLines';

/** A contiguous range of line indexes; `anchor` is where the range was started. */
export interface LineSelection {
  anchor: number;
  start: number;
  end: number;
}

/**
 * The selection after a click on line `index`: a shift-click stretches the range from its
 * anchor, a plain click starts a new one, and a plain click on the one line already
 * picked drops the selection (null).
 */
export function clickLine(sel: LineSelection | null, index: number, shift: boolean): LineSelection | null {
  if (shift && sel) return { anchor: sel.anchor, start: Math.min(sel.anchor, index), end: Math.max(sel.anchor, index) };
  if (sel && sel.start === index && sel.end === index) return null;
  return { anchor: index, start: index, end: index };
}

export function isSelected(sel: LineSelection | null, index: number): boolean {
  return !!sel && index >= sel.start && index <= sel.end;
}

/** A code fence longer than any run of backticks in `text`, so the quote cannot end early. */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** `path:start-end`, a blank line, then `lines` in a fenced block tagged `lang`. */
export function quoteLines(path: string, start: number, end: number, lines: string[], lang = ''): string {
  const body = lines.join('\n');
  const fence = fenceFor(body);
  return `${path}:${start}-${end}\n\n${fence}${lang}\n${body}\n${fence}\n`;
}

/**
 * The quote of diff lines: the range in the new file's numbers (the old file's when only
 * deletions are picked), the lines with their +/-/space prefix in a `diff` block. Headers
 * picked with them are left out; null when nothing but headers is picked.
 */
export function quoteDiffLines(path: string, picked: DiffLine[]): string | null {
  const code = picked.filter((l) => l.kind === 'add' || l.kind === 'del' || l.kind === 'ctx');
  if (!code.length) return null;
  const newNos = code.map((l) => l.newNo).filter((n): n is number => n !== null);
  const nos = newNos.length ? newNos : code.map((l) => l.oldNo as number);
  return quoteLines(path, Math.min(...nos), Math.max(...nos), code.map((l) => diffPrefix(l.kind) + l.text), 'diff');
}

/** A task's title for a quote: its first line (`path:start-end`), short. */
export function reviewTitle(quote: string): string {
  return `Review ${quote.split('\n', 1)[0]}`.slice(0, 200);
}
