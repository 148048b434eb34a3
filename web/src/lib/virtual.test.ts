import { describe, expect, it } from 'vitest';
import { atBottom, computeOffsets, HeightCache, indexAt, visibleRange } from './virtual';

describe('virtual list math', () => {
  const heights = [10, 20, 30, 40];
  const off = computeOffsets(4, (i) => heights[i]);

  it('computes offsets and the total height', () => {
    expect([...off]).toEqual([0, 10, 30, 60, 100]);
  });

  it('finds the row at a position', () => {
    expect(indexAt(off, -5)).toBe(0);
    expect(indexAt(off, 0)).toBe(0);
    expect(indexAt(off, 9.9)).toBe(0);
    expect(indexAt(off, 10)).toBe(1);
    expect(indexAt(off, 59)).toBe(2);
    expect(indexAt(off, 60)).toBe(3);
    expect(indexAt(off, 1000)).toBe(3);
    expect(indexAt(computeOffsets(0, () => 1), 5)).toBe(0);
  });

  it('renders the rows in the viewport plus overscan', () => {
    expect(visibleRange(off, 15, 20, 0)).toEqual({ start: 1, end: 3 });
    expect(visibleRange(off, 15, 20, 1)).toEqual({ start: 0, end: 4 });
    expect(visibleRange(computeOffsets(0, () => 1), 0, 100)).toEqual({ start: 0, end: 0 });
  });

  it('stays small for 100,000 rows', () => {
    const big = computeOffsets(100_000, (i) => 20 + (i % 3));
    const r = visibleRange(big, 1_000_000, 600, 5);
    expect(r.end - r.start).toBeLessThan(50);
    expect(big[r.start + 5]).toBeLessThanOrEqual(1_000_000);
    expect(big[r.start + 6]).toBeGreaterThan(1_000_000);
  });

  it('caches measured heights over an estimate', () => {
    const c = new HeightCache(24);
    expect(c.get('a')).toBe(24);
    expect(c.set('a', 40)).toBe(true);
    expect(c.set('a', 40)).toBe(false);
    expect(c.get('a')).toBe(40);
  });

  it('tells when a scroller is at the bottom', () => {
    expect(atBottom(900, 100, 1000)).toBe(true);
    expect(atBottom(850, 100, 1000)).toBe(false);
  });
});
