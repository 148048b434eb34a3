// @vitest-environment happy-dom
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { PREFERENCES_KEY } from '../../lib/preferences';
import { summaries } from '../../lib/summaries';
import type { Capabilities, RunSummary } from '../../lib/types';
import { click, mount, type Mounted } from '../../test/render';
import { Board, forgetBoardState } from './Board';

const caps: Record<string, Partial<Capabilities>> = {
  initialized: { canResume: true, canReady: true, canArchive: true },
  running: { canAbort: true },
  blocked: { canResume: true, canArchive: true, canReset: true },
  success: { canResume: true, canArchive: true, canReset: true },
  error: { canResume: true, canArchive: true, canReset: true },
};

let n = 0;
function run(runId: string, status: string, extra: Partial<RunSummary> = {}): RunSummary {
  n++;
  return {
    runId, name: runId.toUpperCase(), status, statusReason: '', agent: 'mock', assignment: null, backend: 'mock', model: null, cwd: '/w',
    runGroupId: runId, parentRunId: null, pinned: false, notePresent: false, archived: false,
    createdAt: `2026-12-01T00:00:${String(n).padStart(2, '0')}Z`, updatedAt: `2026-12-01T00:00:${String(n).padStart(2, '0')}Z`,
    startedAt: null, finishedAt: null, taskCounts: { total: 0, pending: 0, inProgress: 0, completed: 0, blocked: 0 }, activeTask: null,
    totalAttemptCount: 0, totalSessionCount: 0, queuedMessageCount: 0, currentSession: null, lastSession: null, revision: 1,
    capabilities: caps[status] ?? {}, ...extra,
  } as RunSummary;
}

let mounted: Mounted | undefined;
let requests: { url: string; method: string; body: unknown }[] = [];
let answer: (url: string) => Response;

beforeEach(() => {
  localStorage.clear();
  forgetBoardState();
  summaries.runs.clear();
  summaries.loading = false;
  for (const r of [
    run('init', 'initialized'),
    run('run', 'running'),
    run('blk', 'blocked'),
    run('zzz', 'success', { name: 'aaa first by name' }),
    run('ok', 'success'),
    run('err', 'error', { pinned: true }),
  ])
    summaries.upsert(r);
  requests = [];
  answer = () => new Response(JSON.stringify({ run: {} }), { status: 200, headers: { 'Content-Type': 'application/json' } });
  vi.stubGlobal('fetch', async (u: URL | string, init: RequestInit) => {
    requests.push({ url: String(u), method: init.method ?? 'GET', body: init.body ? JSON.parse(String(init.body)) : undefined });
    return answer(String(u));
  });
});
afterEach(() => {
  mounted?.unmount();
  vi.unstubAllGlobals();
});

// The open menu lives in document.body (a portal), outside the mounted root.
const menuItems = () => Array.from(document.querySelectorAll<HTMLElement>('[data-testid="card-menu-popup"] button')).map((b) => b.dataset.testid);
const menuAction = (a: string) => document.querySelector<HTMLElement>(`[data-testid="card-menu-popup"] [data-testid="card-action-${a}"]`)!;
const ids = (m: Mounted, selector: string) => m.all(selector).map((e) => e.dataset.runId);
const columnIds = (m: Mounted, column: string) => ids(m, `[data-column="${column}"] [data-testid="run-card"]`);
const settle = () => act(() => new Promise((r) => setTimeout(r, 30)));
async function choose(el: HTMLElement, value: string) {
  await act(() => {
    (el as HTMLSelectElement).value = value;
    el.dispatchEvent(new Event('change', { bubbles: true }));
  });
}
async function key(k: string, extra: KeyboardEventInit = {}) {
  await act(() => {
    window.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, ...extra }));
  });
}

describe('Board', () => {
  it('shows the columns view with each run in its status column, and keeps the view in preferences', async () => {
    mounted = await mount(<Board />);
    expect(mounted.byTestId('board').dataset.view).toBe('list');
    await click(mounted.byTestId('board-view-columns'));
    await settle();
    expect(mounted.all('[data-testid="board-column"]').map((c) => c.dataset.column)).toEqual(['ready', 'running', 'needs-you', 'done', 'failed']);
    expect(columnIds(mounted, 'ready')).toEqual(['init']);
    expect(columnIds(mounted, 'running')).toEqual(['run']);
    expect(columnIds(mounted, 'needs-you')).toEqual(['blk']);
    expect(columnIds(mounted, 'done')).toEqual(['ok', 'zzz']);
    expect(columnIds(mounted, 'failed')).toEqual(['err']);
    expect(JSON.parse(localStorage.getItem(PREFERENCES_KEY)!).boardView).toBe('columns');
  });

  it('sorts by the chosen order and keeps it', async () => {
    localStorage.setItem(PREFERENCES_KEY, JSON.stringify({ boardView: 'columns' }));
    mounted = await mount(<Board />);
    await settle();
    expect(columnIds(mounted, 'done')).toEqual(['ok', 'zzz']); // newest created first
    await choose(mounted.byTestId('board-sort'), 'name');
    await settle();
    expect(columnIds(mounted, 'done')).toEqual(['zzz', 'ok']); // "aaa first by name" before "OK"
    expect(JSON.parse(localStorage.getItem(PREFERENCES_KEY)!).boardSort).toBe('name');
  });

  it('shows one line per run in the compact density and keeps it', async () => {
    mounted = await mount(<Board />);
    await settle();
    expect(mounted.root.querySelector('.board-list')!.classList.contains('compact')).toBe(false);
    await click(mounted.byTestId('board-density'));
    await settle();
    expect(mounted.root.querySelector('.board-list')!.classList.contains('compact')).toBe(true);
    expect(mounted.byTestId('board-density').getAttribute('aria-pressed')).toBe('true');
    expect(mounted.all('[data-testid="run-row"]').length).toBeGreaterThan(0); // the list, remounted at the new height
    expect(JSON.parse(localStorage.getItem(PREFERENCES_KEY)!).density).toBe('compact');
  });

  it('filters by a select filter and by pinned runs', async () => {
    summaries.upsert(run('other', 'success', { backend: 'codex' }));
    mounted = await mount(<Board />);
    await settle();
    await choose(mounted.byTestId('filter-backend'), 'codex');
    expect(ids(mounted, '[data-testid="run-row"]')).toEqual(['other']);
    await choose(mounted.byTestId('filter-backend'), '');
    await click(mounted.byTestId('filter-pinned'));
    expect(ids(mounted, '[data-testid="run-row"]')).toEqual(['err']);
    expect(mounted.byTestId('board-count').textContent).toBe('1 of 7');
  });

  it('picks runs by box, shift-click range and keys; the bulk bar offers what the picked runs allow', async () => {
    mounted = await mount(<Board />);
    await settle();
    const box = (id: string) => mounted!.root.querySelector<HTMLElement>(`[data-run-id="${id}"]`)!.closest('.board-item')!.querySelector<HTMLElement>('[data-testid="run-pick"]')!;
    await click(box('run'));
    expect(mounted.byTestId('bulk-count').textContent).toBe('1 selected');
    expect(mounted.all('.bulk-bar button[data-testid^="bulk-"]').map((b) => b.dataset.testid)).toEqual(['bulk-all', 'bulk-abort', 'bulk-pin', 'bulk-clear']);
    // List order: pinned (err), running (run), initialized (init), blocked (blk), success (ok, zzz).
    await act(() => {
      box('err').dispatchEvent(new MouseEvent('click', { bubbles: true, shiftKey: true }));
    });
    expect(mounted.byTestId('bulk-count').textContent).toBe('2 selected');
    await act(() => {
      box('init').dispatchEvent(new MouseEvent('click', { bubbles: true, shiftKey: true }));
    });
    expect(mounted.byTestId('bulk-count').textContent).toBe('3 selected');
    expect(mounted.all('.bulk-bar button').map((b) => b.textContent)).toEqual(['select all 6', 'Start (1)', 'Resume (1)', 'Abort (1)', 'Archive (2)', 'Pin (2)', 'Unpin (1)', 'Clear']);
    await key('Escape');
    expect(mounted.all('[data-testid="bulk-bar"]')).toHaveLength(0);
    await key('j');
    await key('x');
    expect(mounted.byTestId('bulk-count').textContent).toBe('1 selected');
    await key('J', { shiftKey: true });
    expect(mounted.byTestId('bulk-count').textContent).toBe('2 selected');
    await key('a', { ctrlKey: true });
    expect(mounted.byTestId('bulk-count').textContent).toBe('6 selected');
  });

  it("sees each key's effect in the next even before the board renders (j then x at once)", async () => {
    mounted = await mount(<Board />);
    await settle();
    await act(() => {
      for (const k of ['j', 'x', 'j', 'x']) window.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
    });
    expect(mounted.byTestId('bulk-count').textContent).toBe('2 selected');
    expect(mounted.all('.board-item.picked [data-testid="run-row"]').map((e) => e.dataset.runId)).toEqual(['err', 'run']);
  });

  it('sends a bulk action to each picked run that allows it, then clears the selection', async () => {
    mounted = await mount(<Board />);
    await settle();
    await key('a', { ctrlKey: true });
    await click(mounted.byTestId('bulk-archive'));
    await settle();
    const archived = requests.filter((r) => r.method === 'POST').map((r) => new URL(r.url).pathname);
    expect(archived.sort()).toEqual(['/api/runs/blk/archive', '/api/runs/err/archive', '/api/runs/init/archive', '/api/runs/ok/archive', '/api/runs/zzz/archive']);
    expect(mounted.all('[data-testid="bulk-bar"]')).toHaveLength(0);
  });

  it("offers in a card's menu only what the run's capabilities allow, and shows the API's error", async () => {
    localStorage.setItem(PREFERENCES_KEY, JSON.stringify({ boardView: 'columns' }));
    mounted = await mount(<Board />);
    await settle();
    const menuOf = async (id: string) => {
      await click(mounted!.root.querySelector(`[data-testid="run-card"][data-run-id="${id}"] [data-testid="card-menu"]`)!);
      return menuItems();
    };
    expect(await menuOf('run')).toEqual(['card-action-abort', 'card-action-pin']);
    expect(await menuOf('init')).toEqual(['card-action-start', 'card-action-archive', 'card-action-pin']);
    expect(await menuOf('err')).toEqual(['card-action-resume', 'card-action-archive', 'card-action-unpin']);

    answer = () => new Response(JSON.stringify({ error: { code: 'conflict', message: 'run err changed meanwhile', details: {} } }), { status: 409 });
    await click(menuAction('archive'));
    await settle();
    expect(requests.at(-1)).toMatchObject({ method: 'POST' });
    expect(new URL(requests.at(-1)!.url).pathname).toBe('/api/runs/err/archive');
    expect(mounted.byTestId('board-action-error').textContent).toBe('Archive failed for err: run err changed meanwhile');
    expect(document.querySelectorAll('[data-testid="card-menu-popup"]')).toHaveLength(0);
  });

  it('pins from the menu with the pinned route, opened with m on the selected run', async () => {
    mounted = await mount(<Board />);
    await settle();
    await key('j');
    await key('j');
    await key('m');
    expect(menuItems()).toEqual(['card-action-abort', 'card-action-pin']);
    await click(menuAction('pin'));
    await settle();
    expect(requests.at(-1)).toMatchObject({ method: 'POST', body: { pinned: true } });
    expect(new URL(requests.at(-1)!.url).pathname).toBe('/api/runs/run/pinned');
  });
});
