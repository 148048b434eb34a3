import { describe, expect, it } from 'vitest';
import { pairSideBySide, parseFilePatch } from './diffLines';

const PATCH = [
  'diff --git a/calc.js b/calc.js',
  'index 1..2 100644',
  '--- a/calc.js',
  '+++ b/calc.js',
  '@@ -1,4 +1,5 @@',
  ' keep',
  '-old one',
  '-old two',
  '-old three',
  '+new one',
  '+new two',
  ' middle',
  '+added only',
  '+added too',
  ' end',
  '@@ -10,2 +11,1 @@',
  '-gone',
  ' last',
  '\\ No newline at end of file',
  '',
].join('\n');

describe('parseFilePatch', () => {
  it('numbers context, additions and deletions from the hunk headers', () => {
    const lines = parseFilePatch(PATCH);
    expect(lines.slice(0, 4).every((l) => l.kind === 'meta')).toBe(true);
    expect(lines[4]).toMatchObject({ kind: 'hunk', oldNo: null, newNo: null });
    expect(lines[5]).toEqual({ kind: 'ctx', text: 'keep', oldNo: 1, newNo: 1 });
    expect(lines[6]).toEqual({ kind: 'del', text: 'old one', oldNo: 2, newNo: null });
    expect(lines[9]).toEqual({ kind: 'add', text: 'new one', oldNo: null, newNo: 2 });
    expect(lines[11]).toEqual({ kind: 'ctx', text: 'middle', oldNo: 5, newNo: 4 });
    expect(lines[14]).toEqual({ kind: 'ctx', text: 'end', oldNo: 6, newNo: 7 });
    expect(lines[16]).toEqual({ kind: 'del', text: 'gone', oldNo: 10, newNo: null });
    expect(lines[17]).toEqual({ kind: 'ctx', text: 'last', oldNo: 11, newNo: 11 });
    expect(lines[18].kind).toBe('meta');
    expect(lines).toHaveLength(19);
  });

  it('keeps a binary or omitted file as header lines only', () => {
    const lines = parseFilePatch('diff --git a/x.png b/x.png\nBinary files a/x.png and b/x.png differ\n');
    expect(lines.map((l) => l.kind)).toEqual(['meta', 'meta']);
  });

  it('treats a "+++"/"---" content line inside a hunk as content', () => {
    const lines = parseFilePatch('diff --git a/m b/m\n--- a/m\n+++ b/m\n@@ -1 +1 @@\n---- rule\n++++ rule\n');
    expect(lines.slice(4)).toEqual([
      { kind: 'del', text: '--- rule', oldNo: 1, newNo: null },
      { kind: 'add', text: '+++ rule', oldNo: null, newNo: 1 },
    ]);
  });
});

describe('pairSideBySide', () => {
  it('pairs a run of deletions with the additions after it, the rest against blanks', () => {
    const lines = parseFilePatch(PATCH);
    const rows = pairSideBySide(lines);
    const text = rows.map((r) => [r.left === null ? '' : lines[r.left].text, r.right === null ? '' : lines[r.right].text]);
    expect(text.slice(4)).toEqual([
      ['@@ -1,4 +1,5 @@', '@@ -1,4 +1,5 @@'],
      ['keep', 'keep'],
      ['old one', 'new one'],
      ['old two', 'new two'],
      ['old three', ''],
      ['middle', 'middle'],
      ['', 'added only'],
      ['', 'added too'],
      ['end', 'end'],
      ['@@ -10,2 +11,1 @@', '@@ -10,2 +11,1 @@'],
      ['gone', ''],
      ['last', 'last'],
      ['\\ No newline at end of file', '\\ No newline at end of file'],
    ]);
  });

  it('keeps every line exactly once, in order, on its side', () => {
    const lines = parseFilePatch(PATCH);
    const rows = pairSideBySide(lines);
    const side = (pick: 'left' | 'right', skip: string) =>
      [...new Set(rows.map((r) => r[pick]).filter((i): i is number => i !== null))].filter((i) => lines[i].kind !== skip);
    expect(side('left', 'add')).toEqual(lines.map((l, i) => (l.kind === 'add' ? -1 : i)).filter((i) => i >= 0));
    expect(side('right', 'del')).toEqual(lines.map((l, i) => (l.kind === 'del' ? -1 : i)).filter((i) => i >= 0));
  });
});
