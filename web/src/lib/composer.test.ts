import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  changedVars,
  currentVarInputs,
  historyStep,
  loadComposerStore,
  messageHistory,
  NO_RECONFIGURE,
  rememberSent,
  saveDraft,
  SENT_KEPT,
  sendPlan,
  toUpload,
  type PendingFile,
} from './composer';
import type { RunDetail } from './types';
import type { VarSpecs } from './vars';

function memoryStorage() {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (k: string) => data.get(k) ?? null,
    setItem: (k: string, v: string) => void data.set(k, v),
    removeItem: (k: string) => void data.delete(k),
  };
}

const caps = (c: Record<string, boolean>) => ({ capabilities: c }) as unknown as RunDetail;

describe('draft and sent history in localStorage', () => {
  let storage: ReturnType<typeof memoryStorage>;
  beforeEach(() => {
    storage = memoryStorage();
    vi.stubGlobal('localStorage', storage);
  });
  afterEach(() => vi.unstubAllGlobals());

  it('keeps a draft per run, and a send clears it and joins the history once', () => {
    saveDraft('r1', 'half a thought');
    expect(loadComposerStore('r1')).toEqual({ draft: 'half a thought', sent: [] });
    expect(loadComposerStore('r2')).toEqual({ draft: '', sent: [] });
    rememberSent('r1', 'first');
    rememberSent('r1', 'second');
    expect(rememberSent('r1', 'first')).toEqual({ draft: '', sent: ['second', 'first'] });
    expect(loadComposerStore('r1').draft).toBe('');
  });

  it('keeps the newest sent messages only, and forgets an empty run', () => {
    for (let i = 0; i < SENT_KEPT + 5; ++i) rememberSent('r1', `m${i}`);
    const sent = loadComposerStore('r1').sent;
    expect(sent).toHaveLength(SENT_KEPT);
    expect(sent.at(-1)).toBe(`m${SENT_KEPT + 4}`);
    saveDraft('r3', 'x');
    saveDraft('r3', '');
    expect(storage.data.has('agentry.composer.r3')).toBe(false);
  });

  it('starts empty from garbled storage, and from none', () => {
    storage.setItem('agentry.composer.r1', '{nope');
    expect(loadComposerStore('r1')).toEqual({ draft: '', sent: [] });
    storage.setItem('agentry.composer.r1', JSON.stringify({ draft: 7, sent: ['ok', 3] }));
    expect(loadComposerStore('r1')).toEqual({ draft: '', sent: ['ok'] });
    vi.stubGlobal('localStorage', undefined);
    expect(loadComposerStore('r1')).toEqual({ draft: '', sent: [] });
    expect(() => saveDraft('r1', 'x')).not.toThrow();
  });
});

describe('messageHistory and historyStep', () => {
  const run = {
    message: 'Build dark mode.',
    sessions: [
      { index: 0, prompt: 'the whole brief' },
      { index: 1, prompt: 'now the tests' },
      { index: 2, prompt: '## Tasks\n- a\n\nmixed with sections' },
    ],
    queuedResumeMessages: [{ text: 'queued one' }],
  } as unknown as RunDetail;

  it('lists the run message, later prompts, queued and sent messages, oldest first and each once', () => {
    expect(messageHistory(run, ['now the tests', 'mine'])).toEqual(['Build dark mode.', 'queued one', 'now the tests', 'mine']);
    expect(messageHistory({ message: '', sessions: [], queuedResumeMessages: [] } as unknown as RunDetail, ['  '])).toEqual([]);
  });

  it('walks up to older messages, down to newer ones and back to empty', () => {
    const h = ['a', 'b', 'c'];
    let s = historyStep(h, null, 'up');
    expect(s).toEqual({ index: 2, text: 'c' });
    s = historyStep(h, s.index, 'up');
    expect(s).toEqual({ index: 1, text: 'b' });
    expect(historyStep(h, 0, 'up')).toEqual({ index: 0, text: 'a' });
    expect(historyStep(h, 1, 'down')).toEqual({ index: 2, text: 'c' });
    expect(historyStep(h, 2, 'down')).toEqual({ index: null, text: '' });
    expect(historyStep(h, null, 'down')).toEqual({ index: null, text: '' });
    expect(historyStep([], null, 'up')).toEqual({ index: null, text: '' });
  });
});

describe('reconfigure vars', () => {
  const specs: VarSpecs = {
    feature: { type: 'string', required: true },
    count: { type: 'number', default: 2 },
    urgent: { type: 'boolean', default: false },
    size: { type: 'enum', values: ['small', 'large'], default: 'small' },
    token: { type: 'string', sources: ['env'] },
  };
  const vars = { feature: 'dark mode', count: 3, urgent: true, size: 'large', token: { redacted: true, source: 'env', envName: 'T' } };

  it('start from the run\'s values; a secret or a var the web may not set starts empty', () => {
    expect(currentVarInputs(specs, vars)).toEqual({ feature: 'dark mode', count: '3', urgent: 'true', size: 'large', token: '' });
  });

  it('send only what changed, typed; an emptied var is null', () => {
    const initial = currentVarInputs(specs, vars);
    expect(changedVars(specs, initial, initial)).toEqual({ vars: {}, errors: {} });
    const r = changedVars(specs, { ...initial, feature: 'light mode', count: '5', size: '' }, initial);
    expect(r).toEqual({ vars: { feature: 'light mode', count: 5, size: null }, errors: {} });
  });

  it('check the changed ones as the new-run form does', () => {
    const initial = currentVarInputs(specs, vars);
    const r = changedVars(specs, { ...initial, count: 'many', size: 'huge', feature: '', token: 'x' }, initial);
    expect(Object.keys(r.errors).sort()).toEqual(['count', 'feature', 'size', 'token']);
    expect(r.vars).toEqual({});
  });
});

describe('sendPlan', () => {
  it('queues on a running run, and refuses what a queued message cannot carry', () => {
    const running = caps({ canQueueMessage: true });
    expect(sendPlan(running, 'queue', 'more')).toEqual({ before: [], send: { path: 'queued-resume-messages', body: { text: 'more' }, what: 'queue the message' } });
    expect(sendPlan(running, 'queue', '  ')).toEqual({ errors: ['A queued message needs some text.'] });
    expect(sendPlan(running, 'queue', 'x', { ...NO_RECONFIGURE, vars: { a: 1 } })).toEqual({ errors: ['The run is running: reconfigure it after it ends.'] });
    expect('errors' in sendPlan(caps({ canResume: true }), 'queue', 'x')).toBe(true);
  });

  it('resumes with the message, or without one', () => {
    const rest = caps({ canResume: true });
    expect(sendPlan(rest, 'resume', 'go on')).toEqual({ before: [], send: { path: 'resume', body: { message: 'go on' }, what: 'resume the run' } });
    expect((sendPlan(rest, 'resume', '  ') as { send: { body: unknown } }).send.body).toEqual({});
    expect(sendPlan(caps({}), 'resume', 'x')).toEqual({ errors: ['The run cannot be resumed now.'] });
    expect(sendPlan(rest, 'resume', 'x'.repeat(256 * 1024 + 1))).toEqual({ errors: ['The message is over 256 KiB.'] });
  });

  it('reconfigures an initialized run before starting it', () => {
    const plan = sendPlan(caps({ canResume: true, canReconfigure: true }), 'resume', '', { ...NO_RECONFIGURE, vars: { feature: 'x' }, message: 'new' });
    expect(plan).toMatchObject({ before: [{ path: 'reconfigure', body: { vars: { feature: 'x' }, message: 'new' } }], send: { path: 'resume' } });
  });

  it('resets a run that ran before reconfiguring it, only when asked to', () => {
    const done = caps({ canResume: true, canReset: true });
    const re = { ...NO_RECONFIGURE, vars: { feature: 'y' } };
    expect(sendPlan(done, 'resume', 'again', re)).toEqual({
      errors: ['Vars and the message change only before a run first starts: tick "reset first" to start it over with them.'],
    });
    const plan = sendPlan(done, 'resume', 'again', { ...re, resetFirst: true });
    expect(plan).toMatchObject({ before: [{ path: 'reset' }, { path: 'reconfigure', body: { vars: { feature: 'y' } } }], send: { path: 'resume', body: { message: 'again' } } });
  });

  it('sets or clears a passive run\'s backend session', () => {
    const passive = caps({ canResume: true, canSetBackendSession: true });
    expect(sendPlan(passive, 'resume', '', { ...NO_RECONFIGURE, backendSessionId: ' s-1 ' })).toMatchObject({ before: [{ path: 'backend-session', body: { backendSessionId: 's-1' } }] });
    expect(sendPlan(passive, 'resume', '', { ...NO_RECONFIGURE, backendSessionId: '' })).toMatchObject({ before: [{ path: 'backend-session/clear' }] });
    expect(sendPlan(caps({ canResume: true }), 'resume', '', { ...NO_RECONFIGURE, backendSessionId: 's' })).toEqual({ errors: ['Only a passive run takes a backend session id.'] });
  });
});

describe('toUpload', () => {
  it('leaves out the files uploaded already', () => {
    const f = (key: number, state: PendingFile['state']): PendingFile => ({ key, name: `f${key}`, size: 1, state, progress: 0, error: null, attachmentId: null });
    expect(toUpload([f(1, 'done'), f(2, 'waiting'), f(3, 'failed')]).map((x) => x.key)).toEqual([2, 3]);
  });
});
