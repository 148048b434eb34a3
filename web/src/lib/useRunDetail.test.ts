import { describe, expect, it } from 'vitest';
import type { RunDetail } from './types';
import { newer } from './useRunDetail';

const detail = (runId: string, revision: number, status = 'running') => ({ runId, revision, status }) as RunDetail;

describe('newer', () => {
  it('keeps the higher revision of the same run, whichever lands last', () => {
    const streamed = detail('a', 5, 'aborted');
    const answered = detail('a', 4, 'running');
    expect(newer(streamed, answered)).toBe(streamed);
    expect(newer(answered, streamed)).toBe(streamed);
  });

  it('takes an equal revision, the first copy and another run as they come', () => {
    const a4 = detail('a', 4);
    const again = detail('a', 4, 'success');
    expect(newer(a4, again)).toBe(again);
    expect(newer(null, a4)).toBe(a4);
    const b1 = detail('b', 1);
    expect(newer(detail('a', 9), b1)).toBe(b1);
  });
});
