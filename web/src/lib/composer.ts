// The run view's composer: what a message for the run sends (and in which order), the
// message history the arrow keys walk, the draft kept per run, and the "reconfigure"
// section's checks. What the run allows comes from sendModes (runActions.ts) and the
// capabilities; the API decides in the end, and its refusals are shown as they come.

import type { SendMode } from './runActions';
import type { RunDetail } from './types';
import { acceptsWeb, checkVars, type VarInputs, type VarSpecs } from './vars';

/** The daemon's limit for a resume or queued message (256 KiB of UTF-8). */
export const MAX_MESSAGE_BYTES = 256 * 1024;

// ---- history and draft ----

/** How many sent messages a run's local history keeps. */
export const SENT_KEPT = 50;

export interface ComposerStore {
  draft: string;
  /** Messages sent from this browser, oldest first. */
  sent: string[];
}

const storeKey = (runId: string) => `agentry.composer.${runId}`;

export function loadComposerStore(runId: string): ComposerStore {
  try {
    const raw = localStorage.getItem(storeKey(runId));
    if (raw) {
      const v = JSON.parse(raw);
      return {
        draft: typeof v?.draft === 'string' ? v.draft : '',
        sent: Array.isArray(v?.sent) ? v.sent.filter((s: unknown): s is string => typeof s === 'string') : [],
      };
    }
  } catch {
    /* storage unavailable or garbled: start empty */
  }
  return { draft: '', sent: [] };
}

function saveComposerStore(runId: string, s: ComposerStore): void {
  try {
    if (!s.draft && s.sent.length === 0) localStorage.removeItem(storeKey(runId));
    else localStorage.setItem(storeKey(runId), JSON.stringify(s));
  } catch {
    /* storage full or unavailable: the draft lives on in the page only */
  }
}

export function saveDraft(runId: string, draft: string): void {
  saveComposerStore(runId, { ...loadComposerStore(runId), draft });
}

/** After a send: the draft is cleared and the message joins the local history. */
export function rememberSent(runId: string, text: string): ComposerStore {
  const prev = loadComposerStore(runId);
  const sent = [...prev.sent.filter((s) => s !== text), text].slice(-SENT_KEPT);
  const next = { draft: '', sent };
  saveComposerStore(runId, next);
  return next;
}

/** A later session's prompt without the sections the daemon puts before the message (tasks, attachments). */
function promptMessage(prompt: string): string | null {
  if (!prompt.startsWith('## ')) return prompt;
  return null; // the message cannot be told from the sections reliably: left out
}

/**
 * The messages the arrow keys walk, oldest first, each once (the newest place wins):
 * the run's own message, what later sessions started with, what is queued, then what
 * this browser sent.
 */
export function messageHistory(run: Pick<RunDetail, 'message' | 'sessions' | 'queuedResumeMessages'>, sent: string[]): string[] {
  const all: string[] = [];
  if (run.message) all.push(run.message);
  for (const s of run.sessions ?? []) {
    if (s.index === 0 || !s.prompt) continue;
    const m = promptMessage(s.prompt);
    if (m) all.push(m);
  }
  for (const q of run.queuedResumeMessages ?? []) all.push(q.text);
  all.push(...sent);
  const out: string[] = [];
  for (let i = all.length - 1; i >= 0; --i) {
    const t = all[i];
    if (t.trim() && !out.includes(t)) out.unshift(t);
  }
  return out;
}

/**
 * One arrow key in the history: `index` null is the composer's own (empty) text; up goes
 * to older messages, down to newer ones and then back to empty.
 */
export function historyStep(history: string[], index: number | null, dir: 'up' | 'down'): { index: number | null; text: string } {
  if (history.length === 0) return { index: null, text: '' };
  if (dir === 'up') {
    const i = index === null ? history.length - 1 : Math.max(0, index - 1);
    return { index: i, text: history[i] };
  }
  if (index === null || index >= history.length - 1) return { index: null, text: '' };
  return { index: index + 1, text: history[index + 1] };
}

// ---- reconfigure ----

/** A var's value as the form shows it; a redacted (secret) or structured one shows empty. */
function varInputText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return '';
  return String(v);
}

/** The form's first values: the run's current vars, for the vars the dashboard may set. */
export function currentVarInputs(specs: VarSpecs, vars: Record<string, unknown>): VarInputs {
  const out: VarInputs = {};
  for (const [name, spec] of Object.entries(specs)) out[name] = acceptsWeb(spec) ? varInputText(vars?.[name]) : '';
  return out;
}

/**
 * The `vars` of POST .../reconfigure: only the vars changed from `initial`, checked as
 * the new-run form checks them; a var emptied is `null` (the daemon falls back to its
 * env, parent or default source).
 */
export function changedVars(
  specs: VarSpecs,
  inputs: VarInputs,
  initial: VarInputs,
): { vars: Record<string, string | number | boolean | null>; errors: Record<string, string> } {
  const changedSpecs: VarSpecs = {};
  const changedInputs: VarInputs = {};
  for (const name of Object.keys(specs)) {
    if ((inputs[name] ?? '') === (initial[name] ?? '')) continue;
    changedSpecs[name] = specs[name];
    changedInputs[name] = inputs[name] ?? '';
  }
  const check = checkVars(changedSpecs, changedInputs);
  const vars: Record<string, string | number | boolean | null> = {};
  for (const name of Object.keys(changedSpecs)) {
    if (check.errors[name]) continue;
    vars[name] = name in check.values ? check.values[name] : null;
  }
  return { vars, errors: check.errors };
}

// ---- what a send does ----

export interface ReconfigureInput {
  /** Changed vars (changedVars), or none. */
  vars: Record<string, unknown>;
  /** The run's new message, or null to keep it. */
  message: string | null;
  /** The backend session id to set, '' to clear it, null to keep it. */
  backendSessionId: string | null;
  /** Reset the run first (a run that ran: vars and message change only before its first session). */
  resetFirst: boolean;
}

export const NO_RECONFIGURE: ReconfigureInput = { vars: {}, message: null, backendSessionId: null, resetFirst: false };

export interface SendStep {
  /** Under api/runs/:runId/. */
  path: string;
  body: Record<string, unknown>;
  /** What the step does, for the progress line and errors. */
  what: string;
}

export interface SendPlan {
  /** Before the attachments are uploaded: reset, reconfigure, backend session. */
  before: SendStep[];
  /** After them: the message itself (resume or queue). */
  send: SendStep;
}

const utf8Length = (s: string) => new TextEncoder().encode(s).length;

/** The requests a send makes, in order, or the reasons it cannot be sent as it is. */
export function sendPlan(
  run: Pick<RunDetail, 'capabilities'>,
  mode: SendMode,
  text: string,
  re: ReconfigureInput = NO_RECONFIGURE,
): SendPlan | { errors: string[] } {
  const c = run.capabilities ?? {};
  const errors: string[] = [];
  const before: SendStep[] = [];
  if (utf8Length(text) > MAX_MESSAGE_BYTES) errors.push('The message is over 256 KiB.');
  const wantsVars = Object.keys(re.vars).length > 0 || re.message !== null;
  if (mode === 'queue') {
    if (!c.canQueueMessage) errors.push('Only a running run takes queued messages: resume it with the message instead.');
    if (!text.trim()) errors.push('A queued message needs some text.');
    if (wantsVars || re.backendSessionId !== null || re.resetFirst) errors.push('The run is running: reconfigure it after it ends.');
    if (errors.length) return { errors };
    return { before, send: { path: 'queued-resume-messages', body: { text }, what: 'queue the message' } };
  }
  if (!c.canResume) errors.push('The run cannot be resumed now.');
  if (re.message !== null && utf8Length(re.message) > MAX_MESSAGE_BYTES) errors.push("The run's message is over 256 KiB.");
  if (re.resetFirst) {
    if (!c.canReset) errors.push('The run cannot be reset now.');
    else before.push({ path: 'reset', body: {}, what: 'reset the run' });
  }
  if (wantsVars) {
    if (!c.canReconfigure && !(re.resetFirst && c.canReset))
      errors.push('Vars and the message change only before a run first starts: tick "reset first" to start it over with them.');
    const body: Record<string, unknown> = {};
    if (Object.keys(re.vars).length) body.vars = re.vars;
    if (re.message !== null) body.message = re.message;
    before.push({ path: 'reconfigure', body, what: 'reconfigure the run' });
  }
  if (re.backendSessionId !== null) {
    if (!c.canSetBackendSession) errors.push('Only a passive run takes a backend session id.');
    const id = re.backendSessionId.trim();
    before.push(
      id
        ? { path: 'backend-session', body: { backendSessionId: id }, what: 'set the backend session' }
        : { path: 'backend-session/clear', body: {}, what: 'clear the backend session' },
    );
  }
  if (errors.length) return { errors };
  return { before, send: { path: 'resume', body: text.trim() ? { message: text } : {}, what: 'resume the run' } };
}

/** Whether the run's reconfigure section has anything to offer. */
export function canReconfigureSomething(run: Pick<RunDetail, 'capabilities'>): boolean {
  const c = run.capabilities ?? {};
  return !!(c.canReconfigure || c.canReset || c.canSetBackendSession);
}

// ---- attachments waiting to go ----

export type PendingState = 'waiting' | 'uploading' | 'done' | 'failed';

export interface PendingFile {
  key: number;
  name: string;
  size: number;
  state: PendingState;
  /** 0..1 while uploading. */
  progress: number;
  error: string | null;
  /** Once uploaded (a retry does not upload it again). */
  attachmentId: string | null;
}

/** The files that still have to be uploaded before the message goes. */
export function toUpload(files: PendingFile[]): PendingFile[] {
  return files.filter((f) => f.state !== 'done');
}
