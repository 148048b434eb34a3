import { describe, expect, it } from 'vitest';
import { pruned, toggled, withRange } from './selection';

const order = ['a', 'b', 'c', 'd', 'e'];

describe('selection', () => {
  it('toggles one run in and out', () => {
    const one = toggled(new Set(), 'b');
    expect([...one]).toEqual(['b']);
    expect([...toggled(one, 'b')]).toEqual([]);
  });

  it('adds the range from the anchor, either way round, keeping what was picked', () => {
    expect([...withRange(new Set(['e']), order, 'b', 'd')].sort()).toEqual(['b', 'c', 'd', 'e']);
    expect([...withRange(new Set(), order, 'd', 'b')].sort()).toEqual(['b', 'c', 'd']);
  });

  it('adds just the run when there is no anchor or it is not shown; nothing for a run not shown', () => {
    expect([...withRange(new Set(), order, null, 'c')]).toEqual(['c']);
    expect([...withRange(new Set(), order, 'gone', 'c')]).toEqual(['c']);
    expect([...withRange(new Set(), order, 'a', 'gone')]).toEqual([]);
  });

  it('drops runs that are not shown, and keeps the same object when none drops', () => {
    const sel = new Set(['a', 'x']);
    expect([...pruned(sel, new Set(order))]).toEqual(['a']);
    const kept = new Set(['a']);
    expect(pruned(kept, new Set(order))).toBe(kept);
  });
});
