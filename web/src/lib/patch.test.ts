import { describe, expect, it } from 'vitest';
import { patchLineClass, patchLines, splitPatch } from './patch';

describe('splitPatch', () => {
  it('splits a unified patch per file, by the new path', () => {
    const patch = 'diff --git a/x.txt b/x.txt\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/y b/y\nnew file mode 100644\n--- /dev/null\n+++ b/y\n@@ -0,0 +1 @@\n+z\ndiff --git a/gone b/gone\ndeleted file mode 100644\n--- a/gone\n+++ /dev/null\n';
    const m = splitPatch(patch);
    expect([...m.keys()]).toEqual(['x.txt', 'y', 'gone']);
    expect(m.get('y')).toContain('+z');
  });

  it('gives nothing for text that is not a git patch', () => {
    expect(splitPatch('').size).toBe(0);
    expect(splitPatch('just words\n').size).toBe(0);
  });
});

describe('patchLineClass', () => {
  it('tells file headers, additions, deletions and hunks apart', () => {
    expect(patchLineClass('diff --git a/x b/x')).toBe('p-file');
    expect(patchLineClass('index 1..2')).toBe('p-file');
    expect(patchLineClass('--- a/x')).toBe('p-file');
    expect(patchLineClass('+++ b/x')).toBe('p-file');
    expect(patchLineClass('+added')).toBe('p-add');
    expect(patchLineClass('-removed')).toBe('p-del');
    expect(patchLineClass('@@ -1 +1 @@')).toBe('p-hunk');
    expect(patchLineClass(' context')).toBe('');
  });
});

describe('patchLines', () => {
  it('drops the empty line after the final newline only', () => {
    expect(patchLines('a\nb\n')).toEqual(['a', 'b']);
    expect(patchLines('a\n\n')).toEqual(['a', '']);
    expect(patchLines('')).toEqual([]);
  });
});
