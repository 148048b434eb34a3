// Unified patches as git prints them: split per file, and each line's kind for colouring.

/** Splits a unified patch into per-file pieces keyed by the new path. */
export function splitPatch(patch: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = patch.split(/^(?=diff --git )/m);
  for (const p of parts) {
    if (!p.startsWith('diff --git ')) continue;
    const plus = /^\+\+\+ b\/(.*)$/m.exec(p);
    const head = /^diff --git a\/(.*?) b\/(.*)$/m.exec(p);
    const path = plus?.[1] ?? head?.[2] ?? '';
    out.set(path, p);
  }
  return out;
}

/** The CSS class of one patch line: file header, addition, deletion, hunk header or context (''). */
export function patchLineClass(l: string): string {
  if (l.startsWith('+++') || l.startsWith('---') || l.startsWith('diff ') || l.startsWith('index ')) return 'p-file';
  if (l.startsWith('+')) return 'p-add';
  if (l.startsWith('-')) return 'p-del';
  if (l.startsWith('@@')) return 'p-hunk';
  return '';
}

/** The lines of a patch, without the empty one after its final newline. */
export function patchLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
