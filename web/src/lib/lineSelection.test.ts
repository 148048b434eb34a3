import { describe, expect, it } from 'vitest';
import { parseFilePatch } from './diffLines';
import { clickLine, fenceFor, isSelected, quoteDiffLines, quoteLines, reviewTitle } from './lineSelection';

describe('clickLine', () => {
  it('starts a range on a click and stretches it from the anchor on a shift-click', () => {
    let sel = clickLine(null, 5, false);
    expect(sel).toEqual({ anchor: 5, start: 5, end: 5 });
    sel = clickLine(sel, 9, true);
    expect(sel).toEqual({ anchor: 5, start: 5, end: 9 });
    sel = clickLine(sel, 2, true); // back past the anchor: the range flips, the anchor stays
    expect(sel).toEqual({ anchor: 5, start: 2, end: 5 });
    expect(isSelected(sel, 2) && isSelected(sel, 5) && !isSelected(sel, 6) && !isSelected(null, 1)).toBe(true);
  });

  it('starts afresh on a plain click, and drops a one-line selection clicked again', () => {
    expect(clickLine({ anchor: 1, start: 1, end: 4 }, 7, false)).toEqual({ anchor: 7, start: 7, end: 7 });
    expect(clickLine({ anchor: 3, start: 3, end: 3 }, 3, false)).toBeNull();
    expect(clickLine(null, 3, true)).toEqual({ anchor: 3, start: 3, end: 3 });
  });
});

describe('quotes', () => {
  it('name the path and range and fence the lines', () => {
    expect(quoteLines('src/a.ts', 3, 4, ['const a = 1;', 'const b = 2;'], 'typescript')).toBe(
      'src/a.ts:3-4\n\n```typescript\nconst a = 1;\nconst b = 2;\n```\n',
    );
    expect(reviewTitle('src/a.ts:3-4\n\n```')).toBe('Review src/a.ts:3-4');
  });

  it('fence with more backticks than the lines hold', () => {
    expect(fenceFor('plain')).toBe('```');
    expect(fenceFor('a ```` b')).toBe('`````');
    expect(quoteLines('README.md', 1, 1, ['```sh']).split('\n')[2]).toBe('````');
  });

  it('quote diff lines with their prefixes, in the new file\'s numbers, headers left out', () => {
    const lines = parseFilePatch('diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -4,3 +4,3 @@\n a\n-b\n+B\n c\n');
    expect(quoteDiffLines('x', lines.slice(3, 7))).toBe('x:4-5\n\n```diff\n a\n-b\n+B\n```\n');
    expect(quoteDiffLines('x', [lines[5]])).toBe('x:5-5\n\n```diff\n-b\n```\n'); // a deletion alone: old numbers
    expect(quoteDiffLines('x', lines.slice(0, 3))).toBeNull();
  });
});
