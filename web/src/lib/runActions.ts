// Which action buttons a run shows, from its capabilities, and what they say; and what a
// message written for the run may do now (start, resume or queue). These are the only
// places the dashboard reads the lifecycle capabilities.

import type { RunDetail } from './types';

export type ActionName = 'ready' | 'abort' | 'archive' | 'unarchive' | 'reset' | 'delete' | 'rename' | 'note' | 'pin' | 'group';

/** A run that never ran (initialized or ready) is started; one that ran is resumed. */
export function isInitial(run: Pick<RunDetail, 'status'>): boolean {
  return run.status === 'initialized' || run.status === 'ready';
}

/**
 * The buttons, in order: lifecycle actions the capabilities allow, then the edits (not on
 * a damaged run). Start and resume are not among them: they carry a message, so the
 * composer sends them (sendModes below).
 */
export function runActions(run: Pick<RunDetail, 'status' | 'capabilities' | 'damaged'>): ActionName[] {
  const c = run.capabilities ?? {};
  const actions: ActionName[] = [];
  if (c.canReady) actions.push('ready');
  if (c.canAbort) actions.push('abort');
  if (c.canArchive) actions.push('archive');
  if (c.canUnarchive) actions.push('unarchive');
  if (c.canReset) actions.push('reset');
  if (c.canDelete) actions.push('delete');
  if (!run.damaged) actions.push('rename', 'note', 'pin', 'group');
  return actions;
}

const LABELS: Record<ActionName, string> = {
  ready: 'Ready',
  abort: 'Abort',
  archive: 'Archive',
  unarchive: 'Unarchive',
  reset: 'Reset',
  delete: 'Delete',
  rename: 'Rename',
  note: 'Note',
  pin: 'Pin',
  group: 'Group',
};

export function actionLabel(a: ActionName, pinned: boolean): string {
  return a === 'pin' && pinned ? 'Unpin' : LABELS[a];
}

/** The button's look: the destructive ones are marked. */
export function actionClass(a: ActionName): string {
  return a === 'abort' || a === 'delete' ? 'danger' : '';
}

/** What a message may do: start or resume the run now, or wait in its queue. */
export type SendMode = 'resume' | 'queue';

export interface SendModes {
  /** The modes the run takes now (canResume: not running; canQueueMessage: running). */
  allowed: SendMode[];
  /** The mode to show first: queue while the run is busy, else resume. */
  preferred: SendMode | null;
  /** Resuming starts its first session (initialized or ready). */
  starts: boolean;
  /** Why a mode is not offered, for its disabled toggle. */
  why: Record<SendMode, string | null>;
}

export function sendModes(run: Pick<RunDetail, 'status' | 'capabilities' | 'archived'>): SendModes {
  const c = run.capabilities ?? {};
  const allowed: SendMode[] = [];
  if (c.canResume) allowed.push('resume');
  if (c.canQueueMessage) allowed.push('queue');
  const busy = run.status === 'running';
  const resumeWhy = c.canResume
    ? null
    : run.archived
      ? 'archived: unarchive it first'
      : busy
        ? 'running: queue it, or abort first'
        : 'a dependency is not met yet, or the run is waiting for a member';
  const queueWhy = c.canQueueMessage ? null : run.archived ? 'archived: unarchive it first' : 'only a running run has a queue: resume it with the message';
  return {
    allowed,
    preferred: busy && c.canQueueMessage ? 'queue' : allowed[0] ?? null,
    starts: isInitial(run),
    why: { resume: resumeWhy, queue: queueWhy },
  };
}

/** The send button's label in a mode. */
export function sendLabel(mode: SendMode, starts: boolean): string {
  return mode === 'queue' ? 'Queue' : starts ? 'Start' : 'Resume';
}
