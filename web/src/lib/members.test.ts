import { describe, expect, it } from 'vitest';
import { capacityText, countByState, heardText, isFull, safeHref, sortMembers, stateBadge, summaryText } from './members';
import type { Member } from './types';

function member(name: string, extra: Partial<Member> = {}): Member {
  return {
    daemonId: 'id-' + name, name, host: 'h', pid: 1, advertiseUrl: 'http://127.0.0.1:4773', labels: [], capacity: null, workspaceRoots: [],
    liveRuns: 0, version: '0.9.0', startedAt: '2026-12-01T00:00:00Z', heartbeatAt: '2026-12-01T00:00:01Z',
    heartbeatAgeMs: 1000, state: 'alive', self: false, ...extra,
  };
}

describe('stateBadge', () => {
  it('maps each state to its tone', () => {
    expect(stateBadge('alive')).toMatchObject({ label: 'alive', tone: 'ok' });
    expect(stateBadge('suspect')).toMatchObject({ label: 'suspect', tone: 'warn' });
    expect(stateBadge('dead')).toMatchObject({ label: 'dead', tone: 'err' });
  });

  it('shows a state it does not know as it is, in a neutral tone', () => {
    expect(stateBadge('draining')).toEqual({ label: 'draining', tone: 'unknown', title: '' });
    expect(stateBadge('').label).toBe('unknown');
  });
});

describe('capacityText', () => {
  it('shows live runs over capacity, or live runs alone without a limit', () => {
    expect(capacityText(4, 20)).toBe('4 / 20');
    expect(capacityText(0, 12)).toBe('0 / 12');
    expect(capacityText(4, null)).toBe('4');
    expect(capacityText(0, 0)).toBe('0');
  });

  it('knows a member at its capacity', () => {
    expect(isFull({ liveRuns: 12, capacity: 12 })).toBe(true);
    expect(isFull({ liveRuns: 11, capacity: 12 })).toBe(false);
    expect(isFull({ liveRuns: 500, capacity: null })).toBe(false);
  });
});

describe('heardText', () => {
  it('rounds the age down to whole units', () => {
    expect(heardText(0)).toBe('heard from 0s ago');
    expect(heardText(999)).toBe('heard from 0s ago');
    expect(heardText(3400)).toBe('heard from 3s ago');
    expect(heardText(59_999)).toBe('heard from 59s ago');
    expect(heardText(125_000)).toBe('heard from 2m ago');
    expect(heardText(2 * 3600_000 + 5)).toBe('heard from 2h ago');
    expect(heardText(3 * 86_400_000)).toBe('heard from 3d ago');
  });

  it('never says a negative age, and says when there is none', () => {
    expect(heardText(-1500)).toBe('heard from 0s ago');
    expect(heardText(null)).toBe('never heard from');
    expect(heardText(Number.NaN)).toBe('never heard from');
  });
});

describe('sortMembers', () => {
  it('orders by name, then id, whatever the states, without touching its input', () => {
    const input = [
      member('build-2', { state: 'dead' }),
      member('build-1', { daemonId: 'z', self: true }),
      member('build-1', { daemonId: 'a', state: 'suspect' }),
      member('alpha'),
    ];
    const sorted = sortMembers(input);
    expect(sorted.map((m) => `${m.name}/${m.daemonId}`)).toEqual(['alpha/id-alpha', 'build-1/a', 'build-1/z', 'build-2/id-build-2']);
    expect(input[0].name).toBe('build-2');
  });
});

describe('counts and summary', () => {
  const list = [member('a'), member('b', { state: 'suspect' }), member('c'), member('d', { state: 'dead' })];

  it('counts members by state', () => {
    expect(countByState(list)).toEqual({ alive: 2, suspect: 1, dead: 1 });
    expect(countByState([])).toEqual({ alive: 0, suspect: 0, dead: 0 });
  });

  it('says how many there are, leaving out states with none', () => {
    expect(summaryText(list)).toBe('4 members: 2 alive, 1 suspect, 1 dead');
    expect(summaryText([member('a')])).toBe('1 member: 1 alive');
    expect(summaryText([])).toBe('0 members');
  });
});

describe('safeHref', () => {
  it('links only http and https URLs', () => {
    expect(safeHref('http://10.0.0.7:4773')).toBe('http://10.0.0.7:4773');
    expect(safeHref('HTTPS://build-1.internal')).toBe('HTTPS://build-1.internal');
    expect(safeHref('javascript:alert(1)')).toBeNull();
    expect(safeHref('')).toBeNull();
  });
});
