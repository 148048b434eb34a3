// HTTP client of the daemon's API. Every URL is built relative to document.baseURI (the
// daemon rewrites <base href> for deep links), never as an absolute /api/... path.

import { openStream, type SseEvent, type StreamHandle, type StreamState } from './sse';
import type { Member } from './types';

export const TOKEN_KEY = 'agentry.token';

export class ApiError extends Error {
  constructor(
    public status: number,
    public code: string,
    message: string,
    public details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

let token: string | null = (() => {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
})();

export function getToken(): string | null {
  return token;
}

export function setToken(t: string | null): void {
  token = t;
  try {
    if (t) sessionStorage.setItem(TOKEN_KEY, t);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    /* storage unavailable */
  }
}

type AuthListener = () => void;
const authListeners = new Set<AuthListener>();
/** Called when any request is answered 401: the token is missing or wrong. */
export function onUnauthenticated(l: AuthListener): () => void {
  authListeners.add(l);
  return () => authListeners.delete(l);
}

/** Tells the listeners a request was answered 401 (for requests made without api()). */
export function notifyUnauthenticated(): void {
  authListeners.forEach((l) => l());
}

export function url(path: string): string {
  return new URL(path.replace(/^\/+/, ''), document.baseURI).toString();
}

export function authHeaders(): Record<string, string> {
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function errorOf(res: Response): Promise<ApiError> {
  let text = '';
  try {
    text = await res.text();
  } catch {
    /* no body */
  }
  return errorFromBody(res.status, res.statusText, text);
}

/** The error envelope of an answer's body as an ApiError; a body that is not one says the status. */
export function errorFromBody(status: number, statusText: string, text: string): ApiError {
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  const e = body?.error;
  if (e && typeof e.message === 'string') return new ApiError(status, e.code ?? 'ERROR', e.message, e.details ?? {});
  return new ApiError(status, 'HTTP', `${status} ${statusText}`.trim());
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined | null>;
  signal?: AbortSignal;
}

/** Pauses before each new try of a GET answered 503, in ms (Retry-After wins, up to 2 s). */
export const BUSY_RETRIES = [250, 500, 1000];

function retryDelay(res: Response, fallback: number): number {
  const seconds = Number(res.headers.get('Retry-After'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, 2000) : fallback;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    // The listener leaves with the wait: a page's long-lived signal would gather one per retry.
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export async function api<T = any>(path: string, opts: RequestOptions = {}): Promise<T> {
  const u = new URL(url(path));
  for (const [k, v] of Object.entries(opts.query ?? {})) {
    if (v !== undefined && v !== null && v !== '') u.searchParams.set(k, String(v));
  }
  const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders() };
  const method = opts.method ?? (opts.body !== undefined ? 'POST' : 'GET');
  let body: string | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    headers['Content-Type'] = 'application/json';
    if (opts.body !== undefined) body = JSON.stringify(opts.body);
    else if (method !== 'DELETE') body = '{}';
  }
  let res = await fetch(u, { method, headers, body, signal: opts.signal, cache: 'no-store' });
  // A read the daemon was too busy for (503: its workspace lane or connections full) is
  // asked again a few times: a page fires several reads at once, and one of them
  // refused would otherwise leave a panel empty.
  for (let attempt = 0; res.status === 503 && method === 'GET' && attempt < BUSY_RETRIES.length; attempt++) {
    await sleep(retryDelay(res, BUSY_RETRIES[attempt]), opts.signal);
    res = await fetch(u, { method, headers, body, signal: opts.signal, cache: 'no-store' });
  }
  if (!res.ok) {
    const err = await errorOf(res);
    if (res.status === 401) authListeners.forEach((l) => l());
    throw err;
  }
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** Raw requests (attachments): bytes in or out, same auth and errors. */
export async function rawRequest(path: string, init: RequestInit): Promise<Response> {
  const res = await fetch(url(path), { ...init, headers: { ...authHeaders(), ...(init.headers as Record<string, string>) }, cache: 'no-store' });
  if (!res.ok) {
    const err = await errorOf(res);
    if (res.status === 401) authListeners.forEach((l) => l());
    throw err;
  }
  return res;
}

/** GET /api/daemons: the daemons serving this store (on SQLite, this one). */
export async function fetchMembers(signal?: AbortSignal): Promise<Member[]> {
  const r = await api<{ daemons: Member[] }>('api/daemons', { signal });
  return r.daemons ?? [];
}

export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}

// ---- connection state of all open streams ----

const streamStates = new Map<number, StreamState>();
let nextStreamId = 1;
type StateListener = (s: string) => void;
const stateListeners = new Set<StateListener>();

export function connectionState(): string {
  const states = [...streamStates.values()];
  if (states.some((s) => s === 'reconnecting')) return 'reconnecting';
  if (states.length > 0 && states.every((s) => s === 'live')) return 'live';
  if (states.length === 0) return 'idle';
  return 'connecting';
}

export function onConnectionState(l: StateListener): () => void {
  stateListeners.add(l);
  return () => stateListeners.delete(l);
}

function publishState() {
  const s = connectionState();
  stateListeners.forEach((l) => l(s));
}

export interface ApiStreamOptions {
  resume?: boolean;
  initialLastEventId?: string;
  onEvent: (data: any, e: SseEvent) => void;
  onOpen?: (reconnect: boolean) => void;
  /** The stream is gone for good (404: the run was deleted). */
  onGone?: (status: number) => void;
}

/** An SSE stream of the API, with auth, resume and the shared connection indicator. */
export function apiStream(path: string, opts: ApiStreamOptions): StreamHandle {
  const id = nextStreamId++;
  streamStates.set(id, 'connecting');
  publishState();
  const h = openStream({
    url: url(path),
    headers: authHeaders,
    resume: opts.resume,
    initialLastEventId: opts.initialLastEventId,
    onOpen: opts.onOpen,
    onState: (s) => {
      if (s === 'closed') streamStates.delete(id);
      else streamStates.set(id, s);
      publishState();
    },
    onHttpError: (status) => {
      if (status === 401) {
        authListeners.forEach((l) => l());
        return true;
      }
      opts.onGone?.(status);
      return true;
    },
    onEvent: (e) => {
      let data: unknown;
      try {
        data = JSON.parse(e.data);
      } catch {
        return;
      }
      opts.onEvent(data, e);
    },
  });
  const close = h.close.bind(h);
  return {
    close() {
      close();
      streamStates.delete(id);
      publishState();
    },
    get lastEventId() {
      return h.lastEventId;
    },
    done: h.done,
  };
}
