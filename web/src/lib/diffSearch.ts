// Search in a diff: which lines of which files hold the text (case aside), a line's text
// cut into matching and plain pieces for <mark>, and stepping through hits or files
// with wrap-around.

import type { DiffLine } from './diffLines';

/** One match: the file's index in the diff and the line's index in that file. */
export interface DiffHit {
  file: number;
  line: number;
}

/** The code lines (not headers) of every file that hold `query`, in order; none for an empty query. */
export function findHits(files: DiffLine[][], query: string): DiffHit[] {
  const q = query.toLowerCase();
  if (!q) return [];
  const hits: DiffHit[] = [];
  files.forEach((lines, file) =>
    lines.forEach((l, line) => {
      if (l.kind !== 'meta' && l.kind !== 'hunk' && l.text.toLowerCase().includes(q)) hits.push({ file, line });
    }),
  );
  return hits;
}

/** `text` as pieces, the ones matching `query` (case aside) flagged. */
export function markPieces(text: string, query: string): Array<{ text: string; hit: boolean }> {
  if (!query) return [{ text, hit: false }];
  const lower = text.toLowerCase();
  const q = query.toLowerCase();
  const out: Array<{ text: string; hit: boolean }> = [];
  let at = 0;
  for (let i = lower.indexOf(q); i >= 0; i = lower.indexOf(q, i + q.length)) {
    if (i > at) out.push({ text: text.slice(at, i), hit: false });
    out.push({ text: text.slice(i, i + q.length), hit: true });
    at = i + q.length;
  }
  if (at < text.length || !out.length) out.push({ text: text.slice(at), hit: false });
  return out;
}

/** The index `step` away from `current` among `count`, wrapping; -1 when there are none. */
export function stepIndex(current: number, count: number, step: 1 | -1): number {
  if (count <= 0) return -1;
  if (current < 0) return step > 0 ? 0 : count - 1;
  return (current + step + count) % count;
}
