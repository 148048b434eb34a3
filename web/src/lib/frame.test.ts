import { describe, expect, it } from 'vitest';
import { frameBatcher } from './frame';

describe('frameBatcher', () => {
  it('renders once per frame however often it is asked, and again in the next frame', () => {
    const frames: Array<() => void> = [];
    let renders = 0;
    const bump = frameBatcher(
      () => renders++,
      (cb) => frames.push(cb),
    );
    bump();
    bump();
    bump();
    expect(frames.length).toBe(1);
    expect(renders).toBe(0);
    frames.shift()!();
    expect(renders).toBe(1);
    bump();
    expect(frames.length).toBe(1);
    frames.shift()!();
    expect(renders).toBe(2);
  });
});
