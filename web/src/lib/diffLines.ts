// One file's unified patch as numbered lines, and those lines paired for a side-by-side
// view: the diff tab's review (select lines, search) works on these, not on raw text.

export type DiffLineKind = 'meta' | 'hunk' | 'ctx' | 'add' | 'del';

export interface DiffLine {
  kind: DiffLineKind;
  /** The line's text without its +/-/space prefix (meta and hunk lines: the whole line). */
  text: string;
  /** Its number in the old file (context and deletions), else null. */
  oldNo: number | null;
  /** Its number in the new file (context and additions), else null. */
  newNo: number | null;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** The lines of one file's patch, numbered from its hunk headers. */
export function parseFilePatch(patch: string): DiffLine[] {
  const out: DiffLine[] = [];
  let oldNo = 0;
  let newNo = 0;
  let inHunk = false;
  const lines = patch.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  for (const l of lines) {
    const h = HUNK.exec(l);
    if (h) {
      oldNo = Number(h[1]);
      newNo = Number(h[2]);
      inHunk = true;
      out.push({ kind: 'hunk', text: l, oldNo: null, newNo: null });
    } else if (!inHunk || l.startsWith('diff --git ')) {
      inHunk = false;
      out.push({ kind: 'meta', text: l, oldNo: null, newNo: null });
    } else if (l.startsWith('+')) {
      out.push({ kind: 'add', text: l.slice(1), oldNo: null, newNo: newNo++ });
    } else if (l.startsWith('-')) {
      out.push({ kind: 'del', text: l.slice(1), oldNo: oldNo++, newNo: null });
    } else if (l.startsWith('\\')) {
      out.push({ kind: 'meta', text: l, oldNo: null, newNo: null }); // "\ No newline at end of file"
    } else {
      out.push({ kind: 'ctx', text: l.slice(1), oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return out;
}

/** One row of a side-by-side view: the old side's line and the new side's, either absent. */
export interface SideRow {
  left: number | null;
  right: number | null;
}

/**
 * Rows for a side-by-side view, as indexes into `lines`: context on both sides, a run of
 * deletions paired line by line with the additions right after it (the longer side's
 * rest against blanks), headers across both sides (left and right the same index).
 */
export function pairSideBySide(lines: DiffLine[]): SideRow[] {
  const rows: SideRow[] = [];
  let i = 0;
  while (i < lines.length) {
    const l = lines[i];
    if (l.kind !== 'del' && l.kind !== 'add') {
      rows.push({ left: i, right: i });
      i++;
      continue;
    }
    const dels: number[] = [];
    const adds: number[] = [];
    while (i < lines.length && lines[i].kind === 'del') dels.push(i++);
    while (i < lines.length && lines[i].kind === 'add') adds.push(i++);
    for (let k = 0; k < Math.max(dels.length, adds.length); k++) rows.push({ left: dels[k] ?? null, right: adds[k] ?? null });
  }
  return rows;
}

/** The prefix git prints before a line of this kind. */
export function diffPrefix(kind: DiffLineKind): string {
  return kind === 'add' ? '+' : kind === 'del' ? '-' : kind === 'ctx' ? ' ' : '';
}
