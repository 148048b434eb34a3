import { describe, expect, it } from 'vitest';
import { boardRows, comparator, filterOptions, NO_FILTERS, repoOf, type BoardFilters, type BoardSort } from './board';
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
      run('ccc', 'running', { agent: 'coder', assignment: 'add', runGroupId: 'wave', repo: '/src/app', backend: 'codex' }),
    ];
    expect(filterOptions(runs)).toEqual({ agents: ['coder', 'zed'], assignments: ['add', 'fix'], groups: ['wave'], repos: ['/src/app', '/w'], backends: ['codex', 'mock'] });
  });
});

describe('the repository, backend, pinned and note filters', () => {
  const runs = [
    run('a', 'success', { repo: '/src/app', cwd: '/src/app/web' }),
    run('bb', 'running', { backend: 'codex', notePresent: true }),
    run('ccc', 'ready', { pinned: true, cwd: '/tmp/x' }),
  ];
  const ids = (f: BoardFilters) => boardRows(runs, f).flatMap((r) => (r.type === 'run' ? [r.run.runId] : []));

  it('match the repository (the cwd when a run has none), the backend, pinned runs and runs with a note', () => {
    expect(repoOf(runs[0])).toBe('/src/app');
    expect(repoOf(runs[2])).toBe('/tmp/x');
    expect(ids({ ...none, repo: '/src/app' })).toEqual(['a']);
    expect(ids({ ...none, repo: '/w' })).toEqual(['bb']);
    expect(ids({ ...none, backend: 'codex' })).toEqual(['bb']);
    expect(ids({ ...none, pinned: true })).toEqual(['ccc']);
    expect(ids({ ...none, notes: true })).toEqual(['bb']);
    expect(ids({ ...none, text: 'src/app' })).toEqual(['a']);
  });
});

describe('sorting', () => {
  const runs = [
    run('a', 'success', { name: 'beta', createdAt: '2026-12-01T00:00:01Z', updatedAt: '2026-12-01T00:00:09Z' }),
    run('b', 'error', { name: 'Alpha', createdAt: '2026-12-01T00:00:03Z', updatedAt: '2026-12-01T00:00:05Z' }),
    run('c', 'running', { name: null, createdAt: '2026-12-01T00:00:02Z', updatedAt: '2026-12-01T00:00:07Z' }),
  ];
  const sorted = (s: BoardSort) => [...runs].sort(comparator(s)).map((r) => r.runId);

  it('orders newest updated or created first, by name (unnamed last) or by status', () => {
    expect(sorted('updated')).toEqual(['a', 'c', 'b']);
    expect(sorted('created')).toEqual(['b', 'c', 'a']);
    expect(sorted('name')).toEqual(['b', 'a', 'c']);
    expect(sorted('status')).toEqual(['c', 'b', 'a']); // running, error, success: the STATUSES order
  });

  it("applies within the list view's sections", () => {
    const shape = boardRows([...runs, run('d', 'success', { name: 'aaa' })], none, 'name').map((r) => (r.type === 'group' ? `[${r.label}]` : r.run.runId));
    expect(shape).toEqual(['[running]', 'c', '[error]', 'b', '[success]', 'd', 'a']);
  });
});
