import { describe, expect, it } from 'vitest';
import { parseDependency, scheduleBody, varText } from './runForms';

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

describe('varText', () => {
  it('shows strings as they are, other values as JSON, missing ones as unset', () => {
    expect(varText('dark mode')).toBe('dark mode');
    expect(varText(3)).toBe('3');
    expect(varText(false)).toBe('false');
    expect(varText(null)).toBe('(unset)');
    expect(varText(undefined)).toBe('(unset)');
  });

  it('never shows a redacted value, only where it came from', () => {
    expect(varText({ redacted: true, source: 'env', envName: 'TOKEN' })).toBe('[redacted: env TOKEN]');
    expect(varText({ redacted: true, source: 'cli', inheritedFromRunId: 'abc' })).toBe('[redacted: cli via abc]');
  });
});
