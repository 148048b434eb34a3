import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Resource, type ResourceState } from './resource';

/** A load whose answers the test gives, one request at a time. */
function gatedLoad<T>() {
  const pending: Array<{ resolve: (v: T) => void; reject: (e: unknown) => void; signal: AbortSignal }> = [];
  const load = (signal: AbortSignal) => new Promise<T>((resolve, reject) => pending.push({ resolve, reject, signal }));
  return { load, pending };
}

function watched<T>(options = {}) {
  const seen: Array<ResourceState<T>> = [];
  const r = new Resource<T>((s) => seen.push(s), options);
  return { r, seen, last: () => seen[seen.length - 1] };
}

const flush = () => vi.advanceTimersByTimeAsync(0);

describe('Resource', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reports loading, then the answer', async () => {
    const g = gatedLoad<string>();
    const { r, last } = watched<string>();
    const done = r.set(g.load);
    expect(last()).toEqual({ data: null, error: null, loading: true });
    g.pending[0].resolve('a');
    await done;
    expect(last()).toEqual({ data: 'a', error: null, loading: false });
  });

  it('drops an older answer that lands after a newer load, and aborts its request', async () => {
    const g = gatedLoad<string>();
    const { r, last } = watched<string>();
    void r.set(g.load);
    void r.set(g.load);
    expect(g.pending[0].signal.aborted).toBe(true);
    g.pending[1].resolve('new');
    await flush();
    g.pending[0].resolve('old');
    await flush();
    expect(last().data).toBe('new');
  });

  it('keeps the last answer while reloading and when a load fails, and clears the error on the next load', async () => {
    const g = gatedLoad<string>();
    const { r, last } = watched<string>();
    void r.set(g.load);
    g.pending[0].resolve('a');
    await flush();
    void r.reload();
    expect(last()).toEqual({ data: 'a', error: null, loading: true });
    g.pending[1].reject(new Error('boom'));
    await flush();
    expect(last().data).toBe('a');
    expect((last().error as Error).message).toBe('boom');
    void r.reload();
    expect(last().error).toBeNull();
  });

  it('drops the last answer on failure when asked to', async () => {
    const g = gatedLoad<string>();
    const { r, last } = watched<string>({ clearOnError: true });
    void r.set(g.load);
    g.pending[0].resolve('a');
    await flush();
    void r.reload();
    g.pending[1].reject(new Error('no'));
    await flush();
    expect(last().data).toBeNull();
  });

  it('drops the last answer when what is loaded changes, when asked to, but not on reload', async () => {
    const g = gatedLoad<string>();
    const { r, last } = watched<string>({ clearOnChange: true });
    void r.set(g.load);
    g.pending[0].resolve('a');
    await flush();
    void r.reload();
    expect(last()).toEqual({ data: 'a', error: null, loading: true });
    void r.set(g.load);
    expect(last()).toEqual({ data: null, error: null, loading: true });
  });

  it('waits out the delay, and a newer load within it replaces the older one', async () => {
    const g = gatedLoad<string>();
    const { r } = watched<string>({ delayMs: 200 });
    let firstSettled = false;
    void r.set(g.load).then(() => (firstSettled = true));
    await vi.advanceTimersByTimeAsync(150);
    void r.set(g.load);
    await vi.advanceTimersByTimeAsync(150);
    expect(g.pending.length).toBe(0);
    expect(firstSettled).toBe(true);
    await vi.advanceTimersByTimeAsync(50);
    expect(g.pending.length).toBe(1);
  });

  it('forgets the answer when given nothing to load', async () => {
    const g = gatedLoad<string>();
    const { r, last } = watched<string>();
    void r.set(g.load);
    g.pending[0].resolve('a');
    await flush();
    await r.set(null);
    expect(last()).toEqual({ data: null, error: null, loading: false });
    await r.reload();
    expect(g.pending.length).toBe(1);
  });

  it('reports nothing once stopped', async () => {
    const g = gatedLoad<string>();
    const { r, seen } = watched<string>();
    void r.set(g.load);
    const before = seen.length;
    r.stop();
    expect(g.pending[0].signal.aborted).toBe(true);
    g.pending[0].resolve('late');
    await flush();
    expect(seen.length).toBe(before);
  });
});
