import { describe, expect, it } from 'vitest';
import { ApiError } from './api';
import { actionRequest, applyAction, bulkActions, cardActions, outcomeText } from './boardActions';
import type { Capabilities, RunSummary } from './types';

const run = (runId: string, status: string, capabilities: Partial<Capabilities>, extra: Partial<RunSummary> = {}) =>
  ({ runId, status, capabilities, pinned: false, archived: false, ...extra }) as unknown as RunSummary;

const initial = run('i', 'initialized', { canResume: true, canReady: true, canArchive: true });
const running = run('r', 'running', { canAbort: true, canQueueMessage: true });
const finished = run('s', 'success', { canResume: true, canArchive: true, canReset: true }, { pinned: true });
const archived = run('a', 'success', { canUnarchive: true, canDelete: true });

describe('cardActions', () => {
  it("offers what the capabilities allow, by the run view's rules (start before a first session, resume after)", () => {
    expect(cardActions(initial)).toEqual(['start', 'archive', 'pin']);
    expect(cardActions(running)).toEqual(['abort', 'pin']);
    expect(cardActions(finished)).toEqual(['resume', 'archive', 'unpin']);
    expect(cardActions(archived)).toEqual(['unarchive', 'pin']);
  });

  it('offers no pin on a damaged run, and nothing the capabilities deny', () => {
    expect(cardActions(run('d', 'error', { canArchive: true }, { damaged: { reason: 'bad row' } }))).toEqual(['archive']);
    expect(cardActions(run('n', 'running', {}))).toEqual(['pin']);
  });
});

describe('bulkActions', () => {
  it('lists each action some picked run allows, with how many allow it', () => {
    expect(bulkActions([initial, running, finished])).toEqual([
      { action: 'start', count: 1 },
      { action: 'resume', count: 1 },
      { action: 'abort', count: 1 },
      { action: 'archive', count: 2 },
      { action: 'pin', count: 2 },
      { action: 'unpin', count: 1 },
    ]);
    expect(bulkActions([])).toEqual([]);
  });
});

describe('actionRequest', () => {
  it('is the API route of each action', () => {
    expect(actionRequest('start', 'r 1')).toEqual({ path: 'api/runs/r%201/resume', body: {} });
    expect(actionRequest('resume', 'x')).toEqual({ path: 'api/runs/x/resume', body: {} });
    expect(actionRequest('abort', 'x')).toEqual({ path: 'api/runs/x/abort', body: {} });
    expect(actionRequest('archive', 'x')).toEqual({ path: 'api/runs/x/archive', body: {} });
    expect(actionRequest('unarchive', 'x')).toEqual({ path: 'api/runs/x/unarchive', body: {} });
    expect(actionRequest('pin', 'x')).toEqual({ path: 'api/runs/x/pinned', body: { pinned: true } });
    expect(actionRequest('unpin', 'x')).toEqual({ path: 'api/runs/x/pinned', body: { pinned: false } });
  });
});

describe('applyAction', () => {
  it('sends the action for each run that allows it, skips the others and collects the errors', async () => {
    const sent: string[] = [];
    const send = async (path: string) => {
      sent.push(path);
      if (path.includes('/s/')) throw new ApiError(409, 'conflict', 'run s is running');
    };
    const outcome = await applyAction([initial, running, finished], 'archive', send, 2);
    expect(sent.sort()).toEqual(['api/runs/i/archive', 'api/runs/s/archive']);
    expect(outcome.done).toEqual(['i']);
    expect(outcome.skipped).toEqual(['r']);
    expect(outcome.failed).toEqual([{ runId: 's', message: 'run s is running' }]);
    expect(outcomeText('archive', outcome)).toBe('Archive failed for s: run s is running');
  });

  it('says nothing when everything went through, and counts the other failures', async () => {
    const ok = await applyAction([initial], 'pin', async () => undefined);
    expect(ok.done).toEqual(['i']);
    expect(outcomeText('pin', ok)).toBeNull();
    const bad = await applyAction([initial, finished], 'archive', async () => {
      throw new Error('offline');
    });
    expect(outcomeText('archive', bad)).toBe('Archive failed for i: offline (and 1 more)');
  });
});
