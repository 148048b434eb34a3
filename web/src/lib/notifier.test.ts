// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiStreamOptions } from './api';
import { NO_FILTERS } from './board';
import { newRule, saveNotifySettings, type NotifyEvent } from './notifications';
import { notifySettingsChanged, startNotifier } from './notifier';
import { SummaryStore } from './summaries';
import type { RunSummary } from './types';

const run = (id: string, status: string, revision: number, agent = 'coder', pendingApprovalCount = 0) =>
  ({ runId: id, name: null, status, statusReason: '', agent, assignment: null, archived: false, revision, pendingApprovalCount, finishedAt: status === 'running' ? null : 'r' + revision }) as RunSummary;

let stream: ApiStreamOptions | null = null;
let listing: RunSummary[] = [];
const send = (summary: RunSummary) => stream!.onEvent({ type: 'summary_upsert', summary }, { id: null, lastEventId: '', event: 'message', data: '' });
const settle = () => new Promise((r) => setTimeout(r, 300)); // past the store's coalescing timer

beforeEach(() => {
  localStorage.clear();
  vi.stubGlobal('Notification', { permission: 'granted' });
});
afterEach(() => vi.unstubAllGlobals());

async function started(runs: RunSummary[], approvals: Record<string, Array<{ approvalId: string; summary?: string }>> = {}) {
  listing = runs;
  const store = new SummaryStore(async () => ({ runs: listing, nextCursor: null }), (opts) => {
    stream = opts;
    return { close() {} };
  });
  const shown: NotifyEvent[] = [];
  const reads: string[] = [];
  const readRun = async (id: string) => {
    reads.push(id);
    return { ...store.runs.get(id)!, pendingApprovals: approvals[id] ?? [] };
  };
  const stop = startNotifier(store, (e) => shown.push(e), readRun);
  store.start();
  stream!.onOpen?.(false);
  await settle();
  return { store, shown, stop, reads };
}

describe('startNotifier', () => {
  it('shows the ends the rules ask for, from the summary stream, once', async () => {
    saveNotifySettings({ enabled: true, rules: [newRule({ ...NO_FILTERS, agent: 'coder' })] });
    const { shown, stop, store } = await started([run('a', 'running', 1), run('b', 'running', 1, 'reviewer'), run('old', 'success', 3)]);
    expect(shown).toEqual([]);
    send(run('a', 'success', 2));
    send(run('b', 'error', 2, 'reviewer')); // no rule for the reviewer
    await settle();
    expect(shown.map((e) => [e.runId, e.kind])).toEqual([['a', 'ended']]);
    // A reconnect: the stream opens again and the runs are listed again.
    listing = [run('a', 'success', 2), run('b', 'error', 2, 'reviewer'), run('old', 'success', 3)];
    stream!.onOpen?.(true);
    send(run('a', 'success', 2));
    await settle();
    expect(shown).toHaveLength(1);
    expect(store.runs.size).toBe(3);
    stop();
  });

  it('shows nothing while turned off or without permission, and follows a change of settings', async () => {
    saveNotifySettings({ enabled: false, rules: [newRule(NO_FILTERS)] });
    const { shown, stop } = await started([run('a', 'running', 1), run('b', 'running', 1)]);
    send(run('a', 'success', 2));
    await settle();
    expect(shown).toEqual([]);
    saveNotifySettings({ enabled: true, rules: [newRule(NO_FILTERS)] });
    notifySettingsChanged();
    vi.stubGlobal('Notification', { permission: 'denied' });
    send(run('b', 'success', 2));
    await settle();
    expect(shown).toEqual([]);
    stop();
  });

  it('tells a run that needs the user by its blocked end', async () => {
    saveNotifySettings({ enabled: true, rules: [{ ...newRule(NO_FILTERS), ended: false }] });
    const { shown, stop } = await started([run('a', 'running', 1), run('b', 'running', 1)]);
    send(run('a', 'success', 2));
    send(run('b', 'blocked', 2));
    await settle();
    expect(shown.map((e) => [e.runId, e.kind])).toEqual([['b', 'blocked']]);
    stop();
  });

  it('reads a running run the rules want "needs me" for when its summary counts an approval, and tells each approval once', async () => {
    saveNotifySettings({ enabled: true, rules: [{ ...newRule({ ...NO_FILTERS, agent: 'coder' }), ended: false }] });
    const approvals: Record<string, Array<{ approvalId: string; summary?: string }>> = {};
    const { shown, stop, reads } = await started([run('a', 'running', 1), run('r', 'running', 1, 'reviewer')], approvals);
    expect(reads).toEqual([]); // the baseline reads nothing
    send(run('a', 'running', 2)); // a change without a question waiting: nothing to read
    await settle();
    expect(reads).toEqual([]);
    approvals.a = [{ approvalId: 'ap1', summary: 'rm -rf build' }];
    send(run('a', 'running', 3, 'coder', 1));
    send(run('r', 'running', 2, 'reviewer', 1)); // no rule: never read
    await settle();
    expect(reads).toEqual(['a']);
    expect(shown.map((e) => [e.key, e.body])).toEqual([['a:approval:ap1', 'rm -rf build']]);
    send(run('a', 'running', 4, 'coder', 1)); // the same approval still pending
    await settle();
    expect(reads).toEqual(['a']); // reads of one run are spaced out...
    await new Promise((r) => setTimeout(r, 1500));
    expect(reads).toEqual(['a', 'a']); // ...and the change is read after the pause
    expect(shown).toHaveLength(1);
    stop();
  });
});
