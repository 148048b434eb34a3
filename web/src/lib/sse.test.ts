import { describe, expect, it } from 'vitest';
import { CursorGate, openStream, SseParser, type SseEvent } from './sse';

describe('SseParser', () => {
  it('parses id and data frames', () => {
    const p = new SseParser();
    const ev = p.feed('id: 1\ndata: {"a":1}\n\nid: 2\ndata: {"a":2}\n\n');
    expect(ev.map((e) => [e.id, e.data])).toEqual([
      ['1', '{"a":1}'],
      ['2', '{"a":2}'],
    ]);
    expect(p.lastEventId).toBe('2');
  });

  it('joins frames split across chunks at any byte', () => {
    const text = 'id: 7\ndata: hello\n\ndata: world\n\n';
    for (let cut = 1; cut < text.length; cut++) {
      const p = new SseParser();
      const ev = [...p.feed(text.slice(0, cut)), ...p.feed(text.slice(cut))];
      expect(ev.map((e) => e.data)).toEqual(['hello', 'world']);
      expect(ev[0].id).toBe('7');
      expect(ev[1].id).toBeNull();
      expect(ev[1].lastEventId).toBe('7');
    }
  });

  it('joins multi-line data with newlines', () => {
    const ev = new SseParser().feed('data: a\ndata:b\ndata:  c\n\n');
    expect(ev[0].data).toBe('a\nb\n c');
  });

  it('ignores comments and heartbeats, and frames without data', () => {
    const p = new SseParser();
    const ev = p.feed(': heartbeat\n\n:x\nid: 3\n\ndata: x\n\n');
    expect(ev).toHaveLength(1);
    expect(ev[0].data).toBe('x');
    expect(p.lastEventId).toBe('3');
  });

  it('accepts CRLF and CR line ends, also a CRLF split between chunks', () => {
    const p = new SseParser();
    const a = p.feed('id: 1\r\ndata: one\r');
    const b = p.feed('\n\r\ndata: two\r\rdata: three\n\n');
    const ev = [...a, ...b];
    expect(ev.map((e) => e.data)).toEqual(['one', 'two', 'three']);
  });

  it('reads the event field and a field without a colon', () => {
    const ev = new SseParser().feed('event: ping\ndata\n\n');
    expect(ev[0]).toMatchObject({ event: 'ping', data: '' });
  });
});

describe('CursorGate', () => {
  it('passes ephemeral events and each cursor once, in order', () => {
    const g = new CursorGate();
    expect([g.accept(1), g.accept(null), g.accept(2), g.accept(2), g.accept(1), g.accept(3)]).toEqual([true, true, true, false, false, true]);
    expect(g.last).toBe(3);
  });
});

function body(chunks: string[], fail: boolean): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i < chunks.length) c.enqueue(enc.encode(chunks[i++]));
      else if (fail) c.error(new Error('connection reset'));
      else c.close();
    },
  });
}

describe('openStream', () => {
  it('resumes with Last-Event-ID after a drop, with no gap and no duplicate', async () => {
    const seen: string[][] = [];
    const bodies = [
      ['id: 1\ndata: {"cursor":1}\n\n', 'id: 2\ndata: {"cursor":2}\n\ndata: {"cursor":null}\n\n', 'id: 3\ndata: {"cur'],
      // The daemon replays from the store after the id the client sent; a replay may overlap.
      ['id: 2\ndata: {"cursor":2}\n\nid: 3\ndata: {"cursor":3}\n\n', 'id: 4\ndata: {"cursor":4}\n\n'],
    ];
    let calls = 0;
    const fetchImpl = (async (_u: RequestInfo | URL, init?: RequestInit) => {
      const h = (init?.headers ?? {}) as Record<string, string>;
      seen.push([h['Last-Event-ID'] ?? '', h.Authorization ?? '']);
      const b = bodies[calls++];
      if (!b) return new Response(body([], false), { status: 200 });
      return new Response(body(b, calls === 1), { status: 200 });
    }) as typeof fetch;
    const gate = new CursorGate();
    const got: (number | null)[] = [];
    const states: string[] = [];
    const opens: boolean[] = [];
    let handle: ReturnType<typeof openStream> | null = null;
    handle = openStream({
      url: 'http://x/api/runs/r/events/timeline',
      resume: true,
      headers: () => ({ Authorization: 'Bearer t' }),
      fetchImpl,
      sleep: async () => {},
      backoff: () => 0,
      onState: (s) => states.push(s),
      onOpen: (r) => opens.push(r),
      onEvent: (e: SseEvent) => {
        const d = JSON.parse(e.data);
        if (gate.accept(d.cursor)) got.push(d.cursor);
        if (d.cursor === 4) handle?.close();
      },
    });
    await handle.done;
    expect(got).toEqual([1, 2, null, 3, 4]);
    expect(seen[0]).toEqual(['', 'Bearer t']);
    expect(seen[1]).toEqual(['2', 'Bearer t']);
    expect(states).toEqual(['live', 'reconnecting', 'live', 'closed']);
    expect(opens).toEqual([false, true]);
  });

  it('stops on a 404 and reports it', async () => {
    let status = 0;
    const h = openStream({
      url: 'http://x/s',
      fetchImpl: (async () => new Response('{"error":{"code":"NOT_FOUND","message":"no"}}', { status: 404 })) as typeof fetch,
      sleep: async () => {},
      onEvent: () => {},
      onHttpError: (s) => {
        status = s;
        return true;
      },
    });
    await h.done;
    expect(status).toBe(404);
  });

  it('retries a 503 with backoff', async () => {
    let n = 0;
    const waits: number[] = [];
    const h = openStream({
      url: 'http://x/s',
      fetchImpl: (async () => (++n < 3 ? new Response('', { status: 503 }) : new Response(body(['data: 1\n\n'], false), { status: 200 }))) as typeof fetch,
      sleep: async (ms) => {
        waits.push(ms);
      },
      backoff: (a) => a * 100,
      onEvent: () => h.close(),
    });
    await h.done;
    expect(n).toBe(3);
    expect(waits).toEqual([0, 100]);
  });
});
