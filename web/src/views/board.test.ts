import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../lib/types';
import { boardRows, type BoardFilters } from './Board';
import { parseDependency, scheduleBody } from './RunView';
import { splitPatch } from './RunTabs';

const none: BoardFilters = { text: '', status: '', agent: '', assignment: '', group: '', archived: false };

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

describe('splitPatch', () => {
  it('splits a unified patch per file, by the new path', () => {
    const patch = 'diff --git a/x.txt b/x.txt\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/y b/y\nnew file mode 100644\n--- /dev/null\n+++ b/y\n@@ -0,0 +1 @@\n+z\ndiff --git a/gone b/gone\ndeleted file mode 100644\n--- a/gone\n+++ /dev/null\n';
    const m = splitPatch(patch);
    expect([...m.keys()]).toEqual(['x.txt', 'y', 'gone']);
    expect(m.get('y')).toContain('+z');
  });
});

describe('parseDependency', () => {
  it('reads run ids and group:<id>', () => {
    expect(parseDependency(' k3x9q0a1bc ')).toEqual({ type: 'run', runId: 'k3x9q0a1bc' });
    expect(parseDependency('run:abc')).toEqual({ type: 'run', runId: 'abc' });
    expect(parseDependency('group:wave')).toEqual({ type: 'group', groupId: 'wave' });
    expect(parseDependency('group:')).toBeNull();
    expect(parseDependency('  ')).toBeNull();
  });
});

describe('scheduleBody', () => {
  it('sends exactly one of delay, at, cron', () => {
    expect(scheduleBody('delay', ' 30m ', 'UTC', 'reuse')).toEqual({ delay: '30m' });
    expect(scheduleBody('at', '2030-01-02T09:00:00Z', '', '')).toEqual({ at: '2030-01-02T09:00:00.000Z' });
    expect(scheduleBody('cron', '0 9 * * 1-5', 'Europe/Berlin', 'clone')).toEqual({ cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', mode: 'clone' });
    expect(typeof scheduleBody('at', 'tomorrow-ish', '', '')).toBe('string');
    expect(typeof scheduleBody('delay', '', '', '')).toBe('string');
  });
});
