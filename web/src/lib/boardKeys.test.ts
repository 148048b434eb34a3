import { describe, expect, it } from 'vitest';
import { boardCommand, moveCursor } from './boardKeys';

describe('boardCommand', () => {
  it('reads the moves, with shift extending the selection', () => {
    expect(boardCommand({ key: 'j' })).toEqual({ type: 'move', rows: 1, columns: 0, extend: false });
    expect(boardCommand({ key: 'ArrowUp', shiftKey: true })).toEqual({ type: 'move', rows: -1, columns: 0, extend: true });
    expect(boardCommand({ key: 'J', shiftKey: true })).toEqual({ type: 'move', rows: 1, columns: 0, extend: true });
    expect(boardCommand({ key: 'l' })).toEqual({ type: 'move', rows: 0, columns: 1, extend: false });
    expect(boardCommand({ key: 'ArrowLeft' })).toEqual({ type: 'move', rows: 0, columns: -1, extend: false });
  });

  it('reads pick, open, menu, select all and clear; leaves other keys and alt alone', () => {
    expect(boardCommand({ key: 'x' })).toEqual({ type: 'toggle' });
    expect(boardCommand({ key: 'Enter' })).toEqual({ type: 'open' });
    expect(boardCommand({ key: 'm' })).toEqual({ type: 'menu' });
    expect(boardCommand({ key: 'a', ctrlKey: true })).toEqual({ type: 'all' });
    expect(boardCommand({ key: 'a', metaKey: true })).toEqual({ type: 'all' });
    expect(boardCommand({ key: 'Escape' })).toEqual({ type: 'clear' });
    expect(boardCommand({ key: 'q' })).toBeNull();
    expect(boardCommand({ key: 'j', ctrlKey: true })).toBeNull();
    expect(boardCommand({ key: 'j', altKey: true })).toBeNull();
  });
});

describe('moveCursor', () => {
  const layout = [['a', 'b', 'c'], [], ['d'], ['e', 'f']];

  it('starts at the first run when there is no cursor or it is gone', () => {
    expect(moveCursor(layout, null, 1, 0)).toBe('a');
    expect(moveCursor(layout, 'gone', 0, 1)).toBe('a');
    expect(moveCursor([[], []], null, 1, 0)).toBeNull();
  });

  it('moves within a column, clamped at its ends', () => {
    expect(moveCursor(layout, 'a', 1, 0)).toBe('b');
    expect(moveCursor(layout, 'c', 1, 0)).toBe('c');
    expect(moveCursor(layout, 'a', -1, 0)).toBe('a');
  });

  it('moves to the next column holding runs, at the same row or its last', () => {
    expect(moveCursor(layout, 'c', 0, 1)).toBe('d');
    expect(moveCursor(layout, 'd', 0, 1)).toBe('e');
    expect(moveCursor(layout, 'f', 0, -1)).toBe('d');
    expect(moveCursor(layout, 'f', 0, 1)).toBe('f');
  });
});
