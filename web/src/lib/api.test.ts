// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';

import { api, ApiError, BUSY_RETRIES } from './api';

function answer(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

const busy = () => answer(503, { error: { code: 'unavailable', message: 'busy; try again' } });

describe('api', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('asks a GET again while the daemon answers 503, and returns the answer that came', async () => {
    vi.useFakeTimers();
    const fetch = vi.fn().mockResolvedValueOnce(busy()).mockResolvedValueOnce(busy()).mockResolvedValueOnce(answer(200, { ok: 1 }));
    vi.stubGlobal('fetch', fetch);
    const result = api<{ ok: number }>('api/runs/r1/workspace/refs');
    await vi.runAllTimersAsync();
    await expect(result).resolves.toEqual({ ok: 1 });
    expect(fetch).toHaveBeenCalledTimes(3);
  });

  it('gives up after its retries with the 503 as an ApiError', async () => {
    vi.useFakeTimers();
    const fetch = vi.fn().mockImplementation(async () => busy());
    vi.stubGlobal('fetch', fetch);
    const result = api('api/runs/r1/workspace/refs');
    const caught = result.catch((e) => e);
    await vi.runAllTimersAsync();
    const e = await caught;
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(503);
    expect(fetch).toHaveBeenCalledTimes(1 + BUSY_RETRIES.length);
  });

  it('never repeats a write', async () => {
    const fetch = vi.fn().mockImplementation(async () => busy());
    vi.stubGlobal('fetch', fetch);
    await expect(api('api/runs', { method: 'POST', body: {} })).rejects.toBeInstanceOf(ApiError);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});
