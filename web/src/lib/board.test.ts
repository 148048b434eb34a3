import { describe, expect, it } from 'vitest';
import { boardRows, filterOptions, NO_FILTERS, type BoardFilters } from './board';
import type { RunSummary } from './types';

const none: BoardFilters = NO_FILTERS;

function run(id: string, status: string, extra: Partial<RunSummary> = {}): RunSummary {
  return {
    runId: id, name: null, status, statusReason: '', agent: 'demo', assignment: null, backend: 'mock', model: null, cwd: '/w',
    runGroupId: id, parentRunId: null, pinned: false, notePresent: false, archived: false, createdAt: `2026-12-01T00:00:0${id.length}Z`,
    updatedAt: '', startedAt: null, finishedAt: null, taskCounts: { total: 0, pending: 0, inProgress: 0, completed: 0, blocked: 0 },
    activeTask: null, totalAttemptCount: 0, totalSessionCount: 0, queuedMessageCount: 0, currentSession: null, lastSession: null,
    revision: 1, capabilities: {}, ...extra,
  } as RunSummary;
}

describe('boardRows', () => {
  const runs = [
    run('a', 'success'),
    run('bb', 'running'),
    run('ccc', 'running', { pinned: true }),
    run('dddd', 'error', { archived: true }),
    run('eeeee', 'success', { agent: 'coder', name: 'Dark mode' }),
  ];
  const shape = (f: BoardFilters) => boardRows(runs, f).map((r) => (r.type === 'group' ? `[${r.label}]` : r.run.runId));

  it('puts pinned runs first, then one section per status, newest first, without archived runs', () => {
    expect(shape(none)).toEqual(['[pinned]', 'ccc', '[running]', 'bb', '[success]', 'eeeee', 'a']);
  });

  it('shows archived runs when asked', () => {
    expect(shape({ ...none, archived: true })).toContain('dddd');
  });

  it('filters by status, agent and every word of the text', () => {
    expect(shape({ ...none, status: 'success' })).toEqual(['[success]', 'eeeee', 'a']);
    expect(shape({ ...none, agent: 'coder' })).toEqual(['[success]', 'eeeee']);
    expect(shape({ ...none, text: 'dark CODER' })).toEqual(['[success]', 'eeeee']);
    expect(shape({ ...none, text: 'dark demo' })).toEqual([]);
  });
});

describe('filterOptions', () => {
  it('offers the agents, assignments and shared groups the runs use, sorted', () => {
    const runs = [
      run('a', 'success', { agent: 'zed', assignment: 'fix' }),
      run('bb', 'running', { agent: 'coder', runGroupId: 'wave' }),
      run('ccc', 'running', { agent: 'coder', assignment: 'add', runGroupId: 'wave' }),
    ];
    expect(filterOptions(runs)).toEqual({ agents: ['coder', 'zed'], assignments: ['add', 'fix'], groups: ['wave'] });
  });
});
