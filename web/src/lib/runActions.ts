// Which action buttons a run shows, from its capabilities, and what they say.

import type { RunDetail } from './types';

export type ActionName = 'start' | 'resume' | 'ready' | 'abort' | 'archive' | 'unarchive' | 'reset' | 'delete' | 'rename' | 'note' | 'pin' | 'group';

/** A run that never ran (initialized or ready) is started; one that ran is resumed. */
export function isInitial(run: Pick<RunDetail, 'status'>): boolean {
  return run.status === 'initialized' || run.status === 'ready';
}

/** The buttons, in order: lifecycle actions the capabilities allow, then the edits (not on a damaged run). */
export function runActions(run: Pick<RunDetail, 'status' | 'capabilities' | 'damaged'>): ActionName[] {
  const c = run.capabilities ?? {};
  const initial = isInitial(run);
  const actions: ActionName[] = [];
  if (c.canResume && initial) actions.push('start');
  if (c.canResume && !initial) actions.push('resume');
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
  start: 'Start',
  resume: 'Resume',
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

/** The button's look: the way forward is primary, the destructive ones are marked. */
export function actionClass(a: ActionName): string {
  return a === 'start' || a === 'resume' ? 'primary' : a === 'abort' || a === 'delete' ? 'danger' : '';
}
