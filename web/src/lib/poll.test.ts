import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { poll } from './poll';

/** A load whose answers the test gives, one at a time. */
function gatedLoad() {
  const pending: Array<{ resolve: (v: number) => void; reject: (e: unknown) => void; signal: AbortSignal }> = [];
  let calls = 0;
  const load = (signal: AbortSignal) => {
    calls++;
    return new Promise<number>((resolve, reject) => pending.push({ resolve, reject, signal }));
  };
  return { load, pending, calls: () => calls };
}

const flush = () => vi.advanceTimersByTimeAsync(0);

describe('poll', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('asks at once, then again an interval after each answer', async () => {
    const g = gatedLoad();
    const data: number[] = [];
    const stop = poll({ load: g.load, intervalMs: 2000, onData: (v) => data.push(v), onError: () => {} });
    expect(g.calls()).toBe(1);
    g.pending.shift()!.resolve(1);
    await flush();
    expect(data).toEqual([1]);
    await vi.advanceTimersByTimeAsync(1999);
    expect(g.calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(g.calls()).toBe(2);
    stop();
  });

  it('never has two requests at once, however slow the answer', async () => {
    const g = gatedLoad();
    const stop = poll({ load: g.load, intervalMs: 2000, onData: () => {}, onError: () => {} });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(g.calls()).toBe(1);
    g.pending.shift()!.resolve(1);
    await vi.advanceTimersByTimeAsync(2000);
    expect(g.calls()).toBe(2);
    stop();
  });

  it('reports a failure and keeps asking: the next success comes through', async () => {
    const g = gatedLoad();
    const seen: string[] = [];
    const stop = poll({ load: g.load, intervalMs: 2000, onData: (v) => seen.push('data ' + v), onError: (e) => seen.push('error ' + e) });
    g.pending.shift()!.reject('down');
    await vi.advanceTimersByTimeAsync(2000);
    g.pending.shift()!.resolve(7);
    await flush();
    expect(seen).toEqual(['error down', 'data 7']);
    stop();
  });

  it('stops: aborts the request in flight, drops its answer and asks no more', async () => {
    const g = gatedLoad();
    const seen: unknown[] = [];
    const stop = poll({ load: g.load, intervalMs: 2000, onData: (v) => seen.push(v), onError: (e) => seen.push(e) });
    const first = g.pending.shift()!;
    stop();
    expect(first.signal.aborted).toBe(true);
    first.resolve(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(seen).toEqual([]);
    expect(g.calls()).toBe(1);
  });

  it('stops while waiting between requests', async () => {
    const g = gatedLoad();
    const stop = poll({ load: g.load, intervalMs: 2000, onData: () => {}, onError: () => {} });
    g.pending.shift()!.resolve(1);
    await vi.advanceTimersByTimeAsync(500);
    stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(g.calls()).toBe(1);
  });
});
