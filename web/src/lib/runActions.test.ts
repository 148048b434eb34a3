import { describe, expect, it } from 'vitest';
import { actionClass, actionLabel, runActions, sendLabel, sendModes } from './runActions';
import type { RunDetail } from './types';

const run = (status: string, capabilities: Record<string, boolean>, damaged?: { reason: string }) =>
  ({ status, capabilities, damaged }) as unknown as RunDetail;

describe('runActions', () => {
  it('leaves start and resume to the composer', () => {
    expect(runActions(run('initialized', { canResume: true }))).toEqual(['rename', 'note', 'pin', 'group']);
    expect(runActions(run('success', { canResume: true, canReset: true }))).toEqual(['reset', 'rename', 'note', 'pin', 'group']);
  });

  it('shows what the capabilities allow, in a fixed order', () => {
    const all = { canResume: true, canReady: true, canAbort: true, canArchive: true, canUnarchive: true, canReset: true, canDelete: true };
    expect(runActions(run('running', all))).toEqual(['ready', 'abort', 'archive', 'unarchive', 'reset', 'delete', 'rename', 'note', 'pin', 'group']);
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
    expect(actionClass('abort')).toBe('danger');
    expect(actionClass('delete')).toBe('danger');
    expect(actionClass('note')).toBe('');
  });
});

describe('sendModes', () => {
  it('resumes a run at rest and queues for a running one', () => {
    const rest = sendModes(run('success', { canResume: true }));
    expect(rest).toMatchObject({ allowed: ['resume'], preferred: 'resume', starts: false });
    expect(rest.why.queue).toMatch(/only a running run/);
    const busy = sendModes(run('running', { canQueueMessage: true }));
    expect(busy).toMatchObject({ allowed: ['queue'], preferred: 'queue' });
    expect(busy.why.resume).toMatch(/running/);
  });

  it('starts a run that never ran, and offers nothing on an archived run', () => {
    expect(sendModes(run('initialized', { canResume: true })).starts).toBe(true);
    expect(sendModes(run('ready', { canResume: true })).starts).toBe(true);
    const archived = sendModes({ ...run('success', {}), archived: true });
    expect(archived.allowed).toEqual([]);
    expect(archived.preferred).toBeNull();
    expect(archived.why.resume).toMatch(/archived/);
  });

  it('labels the send button by mode', () => {
    expect(sendLabel('queue', true)).toBe('Queue');
    expect(sendLabel('resume', true)).toBe('Start');
    expect(sendLabel('resume', false)).toBe('Resume');
  });
});
