import { describe, expect, it } from 'vitest';

import { boardCommand } from './boardKeys';
import { DEFAULT_KEYS, keyBindings, keyMapFrom, rebindingProblem } from './keys';

describe('key bindings', () => {
  it('lists the user\'s keys in place of the defaults, the shifted pick keys with them', () => {
    const rows = keyBindings({ ...DEFAULT_KEYS, 'board.next': 'e', 'board.prev': 'u' });
    expect(rows.find((r) => r.id === 'board.next')!.keys).toEqual(['e', '↓']);
    expect(rows.find((r) => r.what.startsWith('Move and pick'))!.keys).toEqual(['E', 'U']);
  });

  it('refuses a key another binding of the same place has, an upper-case letter, a reserved or a long key', () => {
    expect(rebindingProblem('board.next', 'k', DEFAULT_KEYS)).toMatch(/already does: board.prev/);
    expect(rebindingProblem('diff.next', 'k', DEFAULT_KEYS)).toBeNull(); // another place
    expect(rebindingProblem('board.next', 'E', DEFAULT_KEYS)).toMatch(/lower-case/);
    expect(rebindingProblem('board.next', '?', DEFAULT_KEYS)).toMatch(/taken/);
    expect(rebindingProblem('board.next', 'Tab', DEFAULT_KEYS)).toMatch(/one printable key/);
    expect(rebindingProblem('board.next', ' ', DEFAULT_KEYS)).toMatch(/one printable key/);
  });

  it('keeps only stored keys that still fit, the defaults elsewhere', () => {
    expect(keyMapFrom({ 'board.next': 'e', 'board.pick': 'k', 'diff.prev': 42, unknown: 'z' })).toEqual({ ...DEFAULT_KEYS, 'board.next': 'e' });
    expect(keyMapFrom('garbage')).toEqual(DEFAULT_KEYS);
  });

  it('drives the board with the changed keys, shifted to pick while moving', () => {
    const keys = { ...DEFAULT_KEYS, 'board.next': 'e', 'board.pick': 'v' };
    expect(boardCommand({ key: 'e' }, keys)).toEqual({ type: 'move', rows: 1, columns: 0, extend: false });
    expect(boardCommand({ key: 'E', shiftKey: true }, keys)).toEqual({ type: 'move', rows: 1, columns: 0, extend: true });
    expect(boardCommand({ key: 'j' }, keys)).toBeNull();
    expect(boardCommand({ key: 'v' }, keys)).toEqual({ type: 'toggle' });
  });
});
