import { describe, expect, it } from 'vitest';
import { parseFilePatch } from './diffLines';
import { findHits, markPieces, stepIndex } from './diffSearch';

const a = parseFilePatch('diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,2 +1,2 @@\n-Total = 1\n+total = 2\n keep\n');
const b = parseFilePatch('diff --git a/total b/total\n--- /dev/null\n+++ b/total\n@@ -0,0 +1 @@\n+none here\n');

describe('findHits', () => {
  it('finds code lines holding the text, case aside, never headers', () => {
    expect(findHits([a, b], 'TOTAL')).toEqual([
      { file: 0, line: 4 },
      { file: 0, line: 5 },
    ]);
    expect(findHits([a, b], 'here')).toEqual([{ file: 1, line: 4 }]);
    expect(findHits([a, b], '')).toEqual([]);
  });
});

describe('markPieces', () => {
  it('cuts a line into matching and plain pieces', () => {
    expect(markPieces('a Total, total', 'total')).toEqual([
      { text: 'a ', hit: false },
      { text: 'Total', hit: true },
      { text: ', ', hit: false },
      { text: 'total', hit: true },
    ]);
    expect(markPieces('plain', '')).toEqual([{ text: 'plain', hit: false }]);
    expect(markPieces('', 'x')).toEqual([{ text: '', hit: false }]);
  });
});

describe('stepIndex', () => {
  it('steps and wraps around both ways', () => {
    expect(stepIndex(-1, 3, 1)).toBe(0);
    expect(stepIndex(-1, 3, -1)).toBe(2);
    expect(stepIndex(2, 3, 1)).toBe(0);
    expect(stepIndex(0, 3, -1)).toBe(2);
    expect(stepIndex(0, 0, 1)).toBe(-1);
  });
});
