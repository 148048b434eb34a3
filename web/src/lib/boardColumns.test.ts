import { describe, expect, it } from 'vitest';
import { NO_FILTERS } from './board';
import { boardColumns, columnOf, COLUMNS } from './boardColumns';
import type { RunSummary } from './types';

const run = (runId: string, status: string, extra: Partial<RunSummary> = {}) =>
  ({ runId, status, name: null, agent: 'demo', archived: false, pinned: false, createdAt: '2026-12-01T00:00:00Z', updatedAt: '2026-12-01T00:00:00Z', ...extra }) as RunSummary;

describe('columnOf', () => {
  it('puts each status in the column of what it asks of the user', () => {
    const want: Record<string, string> = {
      initialized: 'ready',
      ready: 'ready',
      running: 'running',
      blocked: 'needs-you',
      exhausted: 'needs-you',
      success: 'done',
      error: 'failed',
      aborted: 'failed',
    };
    for (const [status, column] of Object.entries(want)) expect(columnOf({ status } as Parameters<typeof columnOf>[0]), status).toBe(column);
  });

  it('sends a damaged run, or a status it does not know, to the user', () => {
    expect(columnOf({ status: 'success', damaged: { reason: 'bad row' } })).toBe('needs-you');
    expect(columnOf({ status: 'paused' } as unknown as Parameters<typeof columnOf>[0])).toBe('needs-you');
  });

  it('sends a running run whose agent waits on an approval to the user', () => {
    expect(columnOf({ status: 'running', pendingApprovalCount: 1 } as Parameters<typeof columnOf>[0])).toBe('needs-you');
    expect(columnOf({ status: 'running', pendingApprovalCount: 0 } as Parameters<typeof columnOf>[0])).toBe('running');
  });
});

describe('boardColumns', () => {
  const runs = [
    run('r1', 'running', { updatedAt: '2026-12-01T00:00:01Z' }),
    run('r2', 'running', { updatedAt: '2026-12-01T00:00:05Z' }),
    run('r3', 'running', { pinned: true, updatedAt: '2026-12-01T00:00:00Z' }),
    run('b1', 'blocked'),
    run('s1', 'success', { archived: true }),
    run('e1', 'aborted'),
  ];

  it('has every column, in order, even empty ones; pinned runs first, then the sort', () => {
    const cols = boardColumns(runs, NO_FILTERS, 'updated');
    expect(cols.map((c) => c.id)).toEqual(COLUMNS.map((c) => c.id));
    const ids = Object.fromEntries(cols.map((c) => [c.id, c.runs.map((r) => r.runId)]));
    expect(ids).toEqual({ ready: [], running: ['r3', 'r2', 'r1'], 'needs-you': ['b1'], done: [], failed: ['e1'] });
  });

  it('applies the filters', () => {
    const cols = boardColumns(runs, { ...NO_FILTERS, archived: true, status: 'success' }, 'created');
    expect(cols.flatMap((c) => c.runs.map((r) => r.runId))).toEqual(['s1']);
  });
});
