import { describe, expect, it } from 'vitest';
import type { ApiStreamOptions } from './api';
import { SummaryStore } from './summaries';
import type { RunSummary } from './types';

const run = (id: string, revision: number, status = 'running') => ({ runId: id, revision, status }) as RunSummary;

function harness(pages: Array<{ runs: RunSummary[]; nextCursor: string | null }>) {
  let stream: ApiStreamOptions | null = null;
  const gates: Array<() => void> = [];
  const store = new SummaryStore(
    async (cursor) => {
      const i = cursor ? Number(cursor) : 0;
      await new Promise<void>((r) => gates.push(r));
      return pages[i];
    },
    (opts) => {
      stream = opts;
      return { close() {} };
    },
  );
  const send = (d: unknown) => stream!.onEvent(d, { id: null, lastEventId: '', event: 'message', data: '' });
  const open = (reconnect: boolean) => stream!.onOpen?.(reconnect);
  const release = async () => {
    while (gates.length) {
      gates.shift()!();
      await new Promise((r) => setTimeout(r, 0));
    }
  };
  return { store, send, open, release };
}

describe('SummaryStore', () => {
  it('lists every page after the stream opens and keeps the newer revision of a run', async () => {
    const h = harness([
      { runs: [run('a', 1), run('b', 5)], nextCursor: '1' },
      { runs: [run('c', 1)], nextCursor: null },
    ]);
    h.store.start();
    h.open(false);
    // While the listing runs, the stream reports a newer a and an older b.
    h.send({ type: 'summary_upsert', summary: run('a', 2, 'success') });
    h.send({ type: 'summary_upsert', summary: run('b', 4, 'error') });
    await h.release();
    expect([...h.store.runs.keys()].sort()).toEqual(['a', 'b', 'c']);
    expect(h.store.runs.get('a')!.status).toBe('success');
    expect(h.store.runs.get('b')!.revision).toBe(5);
    expect(h.store.loading).toBe(false);
  });

  it('does not bring back a run removed while listing, and drops runs deleted while the stream was down', async () => {
    const h = harness([{ runs: [run('a', 1), run('b', 1)], nextCursor: null }]);
    h.store.start();
    h.open(false);
    h.send({ type: 'summary_removed', runId: 'b' });
    await h.release();
    expect([...h.store.runs.keys()]).toEqual(['a']);

    // Reconnect: the new listing no longer has a; a run created meanwhile arrives on the stream.
    const h2 = harness([{ runs: [run('x', 1)], nextCursor: null }]);
    h2.store.runs.set('a', run('a', 1));
    h2.store.start();
    h2.open(true);
    h2.send({ type: 'summary_upsert', summary: run('new', 1) });
    await h2.release();
    expect([...h2.store.runs.keys()].sort()).toEqual(['new', 'x']);
  });
});
