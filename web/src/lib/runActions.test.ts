import { describe, expect, it } from 'vitest';
import { actionClass, actionLabel, runActions } from './runActions';
import type { RunDetail } from './types';

const run = (status: string, capabilities: Record<string, boolean>, damaged?: { reason: string }) =>
  ({ status, capabilities, damaged }) as unknown as RunDetail;

describe('runActions', () => {
  it('starts a run that never ran and resumes one that did', () => {
    expect(runActions(run('initialized', { canResume: true }))).toEqual(['start', 'rename', 'note', 'pin', 'group']);
    expect(runActions(run('ready', { canResume: true }))[0]).toBe('start');
    expect(runActions(run('success', { canResume: true }))[0]).toBe('resume');
  });

  it('shows what the capabilities allow, in a fixed order', () => {
    const all = { canResume: true, canReady: true, canAbort: true, canArchive: true, canUnarchive: true, canReset: true, canDelete: true };
    expect(runActions(run('running', all))).toEqual(['resume', 'ready', 'abort', 'archive', 'unarchive', 'reset', 'delete', 'rename', 'note', 'pin', 'group']);
    expect(runActions(run('running', {}))).toEqual(['rename', 'note', 'pin', 'group']);
  });

  it('offers no edits on a damaged run', () => {
    expect(runActions(run('error', { canDelete: true }, { reason: 'bad row' }))).toEqual(['delete']);
  });
});

describe('actionLabel and actionClass', () => {
  it('says Unpin on a pinned run and marks the forward and destructive actions', () => {
    expect(actionLabel('pin', true)).toBe('Unpin');
    expect(actionLabel('pin', false)).toBe('Pin');
    expect(actionLabel('resume', true)).toBe('Resume');
    expect(actionClass('start')).toBe('primary');
    expect(actionClass('delete')).toBe('danger');
    expect(actionClass('note')).toBe('');
  });
});
