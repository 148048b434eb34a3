import { describe, expect, it } from 'vitest';
import { NO_FILTERS } from './board';
import {
  loadNotifySettings, newRule, NOTIFY_KEY, ruleLabel, saveNotifySettings, TransitionTracker, wanted, type NotifyRule,
} from './notifications';
import type { RunSummary } from './types';

function run(id: string, status: string, revision: number, extra: Partial<RunSummary> = {}): RunSummary {
  return {
    runId: id, name: null, status, statusReason: '', agent: 'coder', assignment: null, archived: false, revision,
    finishedAt: ['running', 'ready', 'initialized'].includes(status) ? null : `2026-12-01T07:00:0${revision}Z`,
    ...extra,
  } as RunSummary;
}

function memory(initial: Record<string, string> = {}) {
  const m = new Map(Object.entries(initial));
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), m };
}

/** A tracker past its baseline of `runs`. */
function baselined(...runs: RunSummary[]) {
  const t = new TransitionTracker();
  expect(t.observe(runs, true)).toEqual([]);
  return t;
}

describe('TransitionTracker', () => {
  it('announces nothing for what the first listing shows, ended runs included', () => {
    const t = new TransitionTracker();
    expect(t.observe([run('a', 'running', 1)], false)).toEqual([]); // the stream, before the listing
    expect(t.observe([run('a', 'running', 1), run('b', 'success', 3), run('c', 'blocked', 2)], true)).toEqual([]);
  });

  it('announces a run going into an ended status, and into blocked as needing the user', () => {
    const t = baselined(run('a', 'running', 1), run('b', 'running', 1));
    const events = t.observe([run('a', 'success', 2, { name: 'Dark mode' }), run('b', 'blocked', 2, { statusReason: 'task 2 is blocked' })], true);
    expect(events.map((e) => [e.runId, e.kind, e.title, e.body])).toEqual([
      ['a', 'ended', 'Dark mode ended: success', 'coder · a'],
      ['b', 'blocked', 'b is blocked', 'task 2 is blocked'],
    ]);
    expect(events[0].key).toBe('a:ended:2026-12-01T07:00:02Z');
  });

  it('does not announce a run that stays active or stays ended (archived, pinned...)', () => {
    const t = baselined(run('a', 'running', 1), run('b', 'success', 4));
    expect(t.observe([run('a', 'running', 2), run('b', 'success', 5, { archived: true })], true)).toEqual([]);
    expect(t.observe([run('a', 'ready', 3), run('b', 'success', 6)], true)).toEqual([]);
  });

  it('announces a run created after the baseline when it is first seen already ended', () => {
    const t = baselined(run('a', 'running', 1));
    const events = t.observe([run('a', 'running', 1), run('n', 'error', 3)], true);
    expect(events.map((e) => [e.runId, e.kind])).toEqual([['n', 'ended']]);
  });

  it('announces each end once, whatever is replayed after a reconnect', () => {
    const t = baselined(run('a', 'running', 1));
    expect(t.observe([run('a', 'success', 2)], true)).toHaveLength(1);
    // The re-listing after a reconnect, and the stream's copy of the same revision.
    expect(t.observe([run('a', 'success', 2)], true)).toEqual([]);
    // An older copy arriving late does not flip the run back to active...
    expect(t.observe([run('a', 'running', 1)], true)).toEqual([]);
    // ...so the current one is not a new end either.
    expect(t.observe([run('a', 'success', 2)], true)).toEqual([]);
  });

  it('announces a second end after the run was resumed (a new finishedAt)', () => {
    const t = baselined(run('a', 'success', 2));
    expect(t.observe([run('a', 'running', 3)], true)).toEqual([]);
    const events = t.observe([run('a', 'success', 4)], true);
    expect(events.map((e) => e.key)).toEqual(['a:ended:2026-12-01T07:00:04Z']);
  });

  it('forgets deleted runs', () => {
    const t = baselined(run('a', 'running', 1));
    expect(t.observe([], true)).toEqual([]);
    // The same id again (a store copied back): new, so its end is told.
    expect(t.observe([run('a', 'success', 2)], true)).toHaveLength(1);
  });

  it('announces each pending approval once', () => {
    const t = baselined(run('a', 'running', 1));
    const r = run('a', 'running', 2, { name: 'Clean up' });
    const first = t.approvals(r, [{ approvalId: 'ap1', kind: 'command', summary: 'rm -rf build' }]);
    expect(first.map((e) => [e.key, e.kind, e.title, e.body])).toEqual([['a:approval:ap1', 'approval', 'Clean up needs you', 'command: rm -rf build']]);
    expect(t.approvals(r, [{ approvalId: 'ap1' }])).toEqual([]);
    expect(t.approvals(r, [{ approvalId: 'ap1' }, { approvalId: 'ap2' }]).map((e) => e.key)).toEqual(['a:approval:ap2']);
  });

  it('keeps a bounded number of keys', () => {
    const t = new TransitionTracker(2);
    const r = run('a', 'running', 1);
    t.approvals(r, [{ approvalId: '1' }, { approvalId: '2' }, { approvalId: '3' }]);
    // '1' was forgotten (the oldest), '3' is still known.
    expect(t.approvals(r, [{ approvalId: '3' }, { approvalId: '1' }]).map((e) => e.key)).toEqual(['a:approval:1']);
  });
});

describe('rules', () => {
  const rule = (filters: Partial<typeof NO_FILTERS>, ended = true, needsUser = true): NotifyRule => ({ id: 'x', filters: { ...NO_FILTERS, ...filters }, ended, needsUser });

  it('match a run by the board filter they keep, for the kinds they ask for', () => {
    const coder = run('a', 'success', 2, { agent: 'coder' });
    const other = run('b', 'success', 2, { agent: 'reviewer' });
    const rules = [rule({ agent: 'coder' }, true, false)];
    expect(wanted(coder, 'ended', rules)).toBe(true);
    expect(wanted(other, 'ended', rules)).toBe(false);
    expect(wanted(coder, 'approval', rules)).toBe(false);
    expect(wanted(coder, 'blocked', [rule({}, false, true)])).toBe(true);
    expect(wanted(coder, 'ended', [])).toBe(false);
  });

  it('leave archived runs out unless the filter shows them', () => {
    const archived = run('a', 'success', 2, { archived: true });
    expect(wanted(archived, 'ended', [rule({})])).toBe(false);
    expect(wanted(archived, 'ended', [rule({ archived: true })])).toBe(true);
  });

  it('say what they match', () => {
    expect(ruleLabel(rule({}))).toBe('every run');
    expect(ruleLabel(rule({ status: 'blocked', agent: 'coder', text: 'fix' }))).toBe('"fix" · status blocked · agent coder');
  });

  it('are made from the board filter, both kinds on', () => {
    const r = newRule({ ...NO_FILTERS, agent: 'coder' }, 1);
    expect(r).toMatchObject({ filters: { agent: 'coder' }, ended: true, needsUser: true });
    expect(r.id).toMatch(/^r1/);
  });
});

describe('notification settings', () => {
  it('are off with no rules when nothing (or garbage) is stored', () => {
    expect(loadNotifySettings(memory())).toEqual({ enabled: false, rules: [] });
    expect(loadNotifySettings(memory({ [NOTIFY_KEY]: '{nope' }))).toEqual({ enabled: false, rules: [] });
    expect(loadNotifySettings(memory({ [NOTIFY_KEY]: '[1,2]' }))).toEqual({ enabled: false, rules: [] });
    expect(loadNotifySettings(null)).toEqual({ enabled: false, rules: [] });
  });

  it('round-trip, each rule checked field by field', () => {
    const store = memory();
    const r = newRule({ ...NO_FILTERS, status: 'running' });
    expect(saveNotifySettings({ enabled: true, rules: [r] }, store)).toBe(true);
    expect(loadNotifySettings(store)).toEqual({ enabled: true, rules: [r] });
    store.setItem(NOTIFY_KEY, JSON.stringify({ enabled: 'yes', rules: [null, { filters: { agent: 7, status: 'error' }, ended: false }] }));
    expect(loadNotifySettings(store)).toEqual({
      enabled: false,
      rules: [{ id: 'rule-1', filters: { ...NO_FILTERS, status: 'error' }, ended: false, needsUser: true }],
    });
  });

  it('report a storage that refuses', () => {
    const full = { getItem: () => null, setItem: () => { throw new Error('full'); } };
    expect(saveNotifySettings({ enabled: true, rules: [] }, full)).toBe(false);
    expect(saveNotifySettings({ enabled: true, rules: [] }, null)).toBe(false);
  });
});
