// Server-Sent Events over fetch + ReadableStream. EventSource cannot send an
// Authorization header, so agentry's dashboard parses the frames itself.

export interface SseEvent {
  /** The `id:` of this frame, or null when the frame had none (ephemeral events). */
  id: string | null;
  /** The last id seen on the stream so far (the id a reconnect resumes from). */
  lastEventId: string;
  event: string;
  data: string;
}

/** Incremental parser of the text/event-stream format (WHATWG HTML, "event stream interpretation"). */
export class SseParser {
  private buffer = '';
  private pendingCR = false;
  private data: string[] = [];
  private hasData = false;
  private eventType = '';
  private frameId: string | null = null;
  lastEventId = '';
  retry: number | null = null;

  constructor(lastEventId = '') {
    this.lastEventId = lastEventId;
  }

  /** Feeds decoded text; returns the events completed by it. */
  feed(chunk: string): SseEvent[] {
    const out: SseEvent[] = [];
    let text = chunk;
    if (this.pendingCR) {
      // A CR that ended the previous chunk already ended its line; skip the LF of a CRLF pair.
      if (text.startsWith('\n')) text = text.slice(1);
      this.pendingCR = false;
    }
    let start = 0;
    const buf = this.buffer + text;
    const offset = this.buffer.length;
    this.buffer = '';
    for (let i = offset; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(buf.slice(start, i), out);
      if (c === 13) {
        if (i + 1 < buf.length) {
          if (buf.charCodeAt(i + 1) === 10) i++;
        } else {
          this.pendingCR = true;
        }
      }
      start = i + 1;
    }
    this.buffer = buf.slice(start);
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      this.dispatch(out);
      return;
    }
    if (line.charCodeAt(0) === 58 /* ':' comment */) return;
    const colon = line.indexOf(':');
    let field = line;
    let value = '';
    if (colon >= 0) {
      field = line.slice(0, colon);
      value = line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
    }
    switch (field) {
      case 'data':
        this.data.push(value);
        this.hasData = true;
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) {
          this.lastEventId = value;
          this.frameId = value;
        }
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break;
    }
  }

  private dispatch(out: SseEvent[]): void {
    if (this.hasData) {
      out.push({ id: this.frameId, lastEventId: this.lastEventId, event: this.eventType || 'message', data: this.data.join('\n') });
    }
    this.data = [];
    this.hasData = false;
    this.eventType = '';
    this.frameId = null;
  }
}

/** Tracks the last durable cursor and refuses anything at or below it (a replay after a resume). */
export class CursorGate {
  last: number;
  constructor(last = 0) {
    this.last = last;
  }
  /** Ephemeral events (cursor null) always pass; durable ones only once, in order. */
  accept(cursor: number | null | undefined): boolean {
    if (cursor === null || cursor === undefined) return true;
    if (cursor <= this.last) return false;
    this.last = cursor;
    return true;
  }
}

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'closed';

export interface StreamOptions {
  /** Absolute URL of the stream. */
  url: string;
  headers?: () => Record<string, string>;
  /** Resume with Last-Event-ID from the last id seen (cursor streams). */
  resume?: boolean;
  initialLastEventId?: string;
  onEvent: (e: SseEvent) => void;
  /** Called each time a connection opens (reconnect=true after the first). */
  onOpen?: (reconnect: boolean) => void;
  onState?: (s: StreamState) => void;
  /** A response that is not a stream (4xx): return true to stop for good. */
  onHttpError?: (status: number, body: unknown) => boolean;
  fetchImpl?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  backoff?: (attempt: number) => number;
}

export function defaultBackoff(attempt: number): number {
  const base = Math.min(5_000, 500 * 2 ** Math.min(attempt, 4));
  return base / 2 + Math.random() * (base / 2);
}

export interface StreamHandle {
  close(): void;
  readonly lastEventId: string;
  /** Resolves when the stream stops for good (closed, or a fatal HTTP error). */
  done: Promise<void>;
}

/** Opens an SSE stream and keeps it open: on a drop it reconnects with backoff, resuming after the last id. */
export function openStream(opts: StreamOptions): StreamHandle {
  const doFetch = opts.fetchImpl ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const backoff = opts.backoff ?? defaultBackoff;
  let closed = false;
  let controller: AbortController | null = null;
  let lastEventId = opts.initialLastEventId ?? '';
  let state: StreamState = 'connecting';
  const setState = (s: StreamState) => {
    if (s === state) return;
    state = s;
    opts.onState?.(s);
  };

  const run = async () => {
    let failures = 0;
    let opened = false;
    while (!closed) {
      controller = new AbortController();
      const headers: Record<string, string> = { Accept: 'text/event-stream', ...(opts.headers?.() ?? {}) };
      if (opts.resume && lastEventId) headers['Last-Event-ID'] = lastEventId;
      try {
        const res = await doFetch(opts.url, { headers, signal: controller.signal, cache: 'no-store' });
        if (!res.ok || !res.body) {
          let body: unknown = null;
          try {
            body = await res.json();
          } catch {
            /* not JSON */
          }
          if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
            if (opts.onHttpError?.(res.status, body) ?? true) {
              closed = true;
              break;
            }
          }
          throw new Error(`stream answered ${res.status}`);
        }
        failures = 0;
        setState('live');
        opts.onOpen?.(opened);
        opened = true;
        const parser = new SseParser(lastEventId);
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          const events = parser.feed(decoder.decode(value, { stream: true }));
          for (const e of events) {
            if (closed) break;
            if (e.id !== null) lastEventId = e.id;
            opts.onEvent(e);
          }
          if (closed) break;
        }
      } catch (err) {
        if (closed) break;
      }
      if (closed) break;
      setState('reconnecting');
      await sleep(backoff(failures++));
    }
    setState('closed');
  };
  const done = run();
  return {
    close() {
      closed = true;
      controller?.abort();
    },
    get lastEventId() {
      return lastEventId;
    },
    done,
  };
}
