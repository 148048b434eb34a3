// @vitest-environment happy-dom
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { RunDetail } from '../../../lib/types';
import type { Uploader } from '../../../lib/upload';
import { click, mount, type, type Mounted } from '../../../test/render';
import { Composer } from './Composer';

const base = {
  runId: 'r-1',
  status: 'success',
  archived: false,
  assignment: null,
  cwd: '/work',
  message: 'Build it.',
  vars: {},
  sessions: [{ index: 0, prompt: 'brief' }],
  queuedResumeMessages: [],
  capabilities: { canResume: true, canReset: true },
} as unknown as RunDetail;

const running = { ...base, status: 'running', capabilities: { canQueueMessage: true, canAbort: true } } as unknown as RunDetail;

interface Call {
  method: string;
  path: string;
  body: unknown;
}

let mounted: Mounted | undefined;
let calls: Call[];
let answer: (c: Call) => { status: number; body: unknown };

beforeEach(() => {
  localStorage.clear();
  calls = [];
  answer = () => ({ status: 200, body: { run: base } });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (u: URL | string, init: RequestInit = {}) => {
      const c = { method: init.method ?? 'GET', path: new URL(String(u)).pathname, body: init.body ? JSON.parse(String(init.body)) : undefined };
      calls.push(c);
      const a = answer(c);
      return new Response(JSON.stringify(a.body), { status: a.status, headers: { 'Content-Type': 'application/json' } });
    }),
  );
});
afterEach(() => {
  mounted?.unmount();
  mounted = undefined;
  vi.unstubAllGlobals();
});

/** Lets the promises a click started settle (requests, uploads) and the updates land. */
async function settle() {
  for (let i = 0; i < 5; ++i) await act(() => new Promise((r) => setTimeout(r, 0)));
}

async function key(el: Element, k: string, mods: KeyboardEventInit = {}) {
  await act(() => {
    el.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...mods }));
  });
}

async function drop(el: Element, files: File[]) {
  await act(() => {
    const e = new Event('drop', { bubbles: true, cancelable: true });
    Object.defineProperty(e, 'dataTransfer', { value: { files, types: ['Files'] } });
    el.dispatchEvent(e);
  });
}

const input = () => mounted!.byTestId('composer-input') as HTMLTextAreaElement;
const sendButton = () => mounted!.byTestId('composer-send') as HTMLButtonElement;

describe('Composer: resume or queue', () => {
  it('follows the run state: queue while it runs, resume or start at rest', async () => {
    mounted = await mount(<Composer run={running} onRun={() => {}} />);
    expect(mounted.byTestId('composer').dataset.mode).toBe('queue');
    expect((mounted.byTestId('composer-mode-resume') as HTMLButtonElement).disabled).toBe(true);
    expect(mounted.byTestId('composer-mode-resume').title).toMatch(/running/);
    expect(sendButton().textContent).toBe('Queue');

    await act(() => render(<Composer run={base} onRun={() => {}} />, mounted!.root));
    expect(mounted.byTestId('composer').dataset.mode).toBe('resume');
    expect((mounted.byTestId('composer-mode-queue') as HTMLButtonElement).disabled).toBe(true);
    expect(sendButton().textContent).toBe('Resume');

    const fresh = { ...base, status: 'initialized', capabilities: { canResume: true, canReconfigure: true } } as unknown as RunDetail;
    await act(() => render(<Composer run={fresh} onRun={() => {}} />, mounted!.root));
    expect(sendButton().textContent).toBe('Start');
  });

  it('queues the message on a running run, then clears and remembers it', async () => {
    const onRun = vi.fn();
    answer = () => ({ status: 201, body: { message: { id: 'qm_1' }, run: running } });
    mounted = await mount(<Composer run={running} onRun={onRun} />);
    await type(input(), 'and the docs');
    expect(JSON.parse(localStorage.getItem('agentry.composer.r-1')!).draft).toBe('and the docs');
    await click(sendButton());
    await settle();
    expect(calls).toEqual([{ method: 'POST', path: '/api/runs/r-1/queued-resume-messages', body: { text: 'and the docs' } }]);
    expect(onRun).toHaveBeenCalledWith(running);
    expect(input().value).toBe('');
    expect(JSON.parse(localStorage.getItem('agentry.composer.r-1')!)).toEqual({ draft: '', sent: ['and the docs'] });
  });

  it('sends with Ctrl+Enter and shows the error envelope inline', async () => {
    answer = () => ({ status: 422, body: { error: { code: 'CONFLICT', message: 'cannot resume run r-1: dependency not met', details: {} } } });
    mounted = await mount(<Composer run={base} onRun={() => {}} />);
    await type(input(), 'go on');
    await key(input(), 'Enter', { ctrlKey: true });
    await settle();
    expect(calls.map((c) => [c.path, c.body])).toEqual([['/api/runs/r-1/resume', { message: 'go on' }]]);
    expect(mounted.byTestId('composer-error').textContent).toContain('cannot resume run r-1: dependency not met');
    expect(input().value).toBe('go on');
  });

  it('says why nothing can be sent to an archived run', async () => {
    mounted = await mount(<Composer run={{ ...base, archived: true, capabilities: { canUnarchive: true } } as unknown as RunDetail} onRun={() => {}} />);
    expect(mounted.byTestId('composer').textContent).toMatch(/unarchive/i);
    expect(mounted.all('[data-testid="composer-send"]')).toHaveLength(0);
  });
});

describe('Composer: attachments', () => {
  it('lists dropped files, removes one, and uploads the rest before the message', async () => {
    const order: string[] = [];
    const upload: Uploader = vi.fn(async (_runId, file, onProgress) => {
      order.push(`upload ${file.name}`);
      onProgress(0.5);
      return { attachmentId: 'att_' + file.name } as never;
    });
    answer = (c) => {
      order.push(`${c.method} ${c.path}`);
      return { status: 200, body: { run: base } };
    };
    mounted = await mount(<Composer run={base} onRun={() => {}} upload={upload} />);
    await drop(mounted.byTestId('composer'), [new File(['a'], 'a.txt'), new File(['bb'], 'b.log'), new File(['c'], 'c.md')]);
    expect(mounted.all('[data-testid="composer-file"]').map((li) => li.querySelector('.name')!.textContent)).toEqual(['a.txt', 'b.log', 'c.md']);
    await click(mounted.all('[data-testid="composer-file-remove"]')[1]);
    await settle();
    expect(mounted.all('[data-testid="composer-file"]')).toHaveLength(2);

    await type(input(), 'see the files');
    await click(sendButton());
    await settle();
    expect(order).toEqual(['upload a.txt', 'upload c.md', 'POST /api/runs/r-1/resume']);
    expect(mounted.all('[data-testid="composer-file"]')).toHaveLength(0);
  });

  it('stops before the message when an upload fails, and does not upload a file twice', async () => {
    let failC = true;
    const uploaded: string[] = [];
    const upload: Uploader = async (_runId, file) => {
      if (file.name === 'c.md' && failC) throw new Error('413 over the limit');
      uploaded.push(file.name);
      return { attachmentId: 'att_' + file.name } as never;
    };
    mounted = await mount(<Composer run={base} onRun={() => {}} upload={upload} />);
    await drop(mounted.byTestId('composer'), [new File(['a'], 'a.txt'), new File(['c'], 'c.md')]);
    await click(sendButton());
    await settle();
    expect(calls).toEqual([]);
    const rows = mounted.all('[data-testid="composer-file"]');
    expect(rows.map((r) => r.dataset.state)).toEqual(['done', 'failed']);
    expect(mounted.byTestId('composer-file-error').textContent).toContain('413 over the limit');
    expect(mounted.byTestId('composer-error').textContent).toMatch(/not sent/);

    failC = false;
    await click(sendButton());
    await settle();
    expect(uploaded).toEqual(['a.txt', 'c.md']);
    expect(calls.map((c) => c.path)).toEqual(['/api/runs/r-1/resume']);
  });

  it('shows each file\'s progress while it uploads, and holds the message until it is done', async () => {
    let finish: () => void = () => {};
    let report: (f: number) => void = () => {};
    const upload: Uploader = (_runId, _file, onProgress) =>
      new Promise((resolve) => {
        report = onProgress;
        finish = () => resolve({ attachmentId: 'att_1' } as never);
      });
    mounted = await mount(<Composer run={base} onRun={() => {}} upload={upload} />);
    await drop(mounted.byTestId('composer'), [new File(['abc'], 'log.txt')]);
    expect(mounted.byTestId('composer-file').textContent).toContain('to upload');
    await click(sendButton());
    await act(() => report(0.42));
    expect(mounted.byTestId('composer-file').dataset.state).toBe('uploading');
    expect(mounted.byTestId('composer-file').textContent).toContain('42%');
    expect(mounted.root.querySelector('progress')).not.toBeNull();
    expect(mounted.byTestId('composer-progress').textContent).toMatch(/uploading/);
    expect(sendButton().disabled).toBe(true);
    expect(calls).toEqual([]);
    await act(() => finish());
    await settle();
    expect(calls.map((c) => c.path)).toEqual(['/api/runs/r-1/resume']);
  });

  it('refuses a file over 25 MiB without uploading it', async () => {
    const upload = vi.fn();
    mounted = await mount(<Composer run={base} onRun={() => {}} upload={upload as unknown as Uploader} />);
    const big = new File(['x'], 'big.iso');
    Object.defineProperty(big, 'size', { value: 26 * 1024 * 1024 });
    await drop(mounted.byTestId('composer'), [big]);
    expect(mounted.byTestId('composer-file').dataset.state).toBe('failed');
    expect(mounted.byTestId('composer-file-error').textContent).toMatch(/25 MiB/);
    await click(sendButton());
    await settle();
    expect(upload).not.toHaveBeenCalled();
    expect(calls).toEqual([]);
  });
});

describe('Composer: history', () => {
  it('walks the run\'s messages and the sent ones with the arrows in an empty composer', async () => {
    localStorage.setItem('agentry.composer.r-1', JSON.stringify({ draft: '', sent: ['sent before'] }));
    const run = { ...base, sessions: [{ index: 0, prompt: 'brief' }, { index: 1, prompt: 'a follow-up' }] } as unknown as RunDetail;
    mounted = await mount(<Composer run={run} onRun={() => {}} />);
    await key(input(), 'ArrowUp');
    expect(input().value).toBe('sent before');
    await key(input(), 'ArrowUp');
    expect(input().value).toBe('a follow-up');
    await key(input(), 'ArrowUp');
    await key(input(), 'ArrowUp');
    expect(input().value).toBe('Build it.');
    await key(input(), 'ArrowDown');
    expect(input().value).toBe('a follow-up');
    await key(input(), 'ArrowDown');
    await key(input(), 'ArrowDown');
    expect(input().value).toBe('');
  });

  it('leaves the arrows alone once the text is the user\'s own, and restores the draft', async () => {
    localStorage.setItem('agentry.composer.r-1', JSON.stringify({ draft: 'unfinished', sent: ['old'] }));
    mounted = await mount(<Composer run={base} onRun={() => {}} />);
    expect(input().value).toBe('unfinished');
    await key(input(), 'ArrowUp');
    expect(input().value).toBe('unfinished');
    await type(input(), '');
    await key(input(), 'ArrowUp');
    expect(input().value).toBe('old');
    await type(input(), 'old, edited');
    await key(input(), 'ArrowUp');
    expect(input().value).toBe('old, edited');
  });
});

describe('Composer: reconfigure', () => {
  const specs = {
    feature: { type: 'string', required: true },
    count: { type: 'number', default: 2 },
  };
  const withAssignment = {
    ...base,
    assignment: 'feature',
    vars: { feature: 'dark mode', count: 3 },
  } as unknown as RunDetail;

  async function openReconfigure() {
    expect(mounted!.all('[data-testid="composer-reconfigure"]')).toHaveLength(0);
    await click(mounted!.byTestId('composer-reconfigure-toggle'));
    await settle();
    expect(mounted!.byTestId('composer-reconfigure-toggle').getAttribute('aria-expanded')).toBe('true');
  }

  beforeEach(() => {
    answer = (c) =>
      c.path.startsWith('/api/assignments/') ? { status: 200, body: { assignment: { assignment: { name: 'feature', vars: specs } } } } : { status: 200, body: { run: base } };
  });

  it('checks the vars as the new-run form does and sends nothing when they are wrong', async () => {
    mounted = await mount(<Composer run={{ ...withAssignment, status: 'initialized', capabilities: { canResume: true, canReconfigure: true } } as unknown as RunDetail} onRun={() => {}} />);
    await openReconfigure();
    const count = mounted.root.querySelector('[name="var.count"]') as HTMLInputElement;
    expect(count.value).toBe('3');
    expect((mounted.root.querySelector('[name="var.feature"]') as HTMLInputElement).value).toBe('dark mode');
    await type(count, 'many');
    await click(sendButton());
    await settle();
    expect(mounted.byTestId('composer-error').textContent).toContain('count must be a number');
    expect(mounted.root.querySelector('label.invalid')).not.toBeNull();
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);

    await type(count, '7');
    await click(sendButton());
    await settle();
    expect(calls.filter((c) => c.method === 'POST').map((c) => [c.path, c.body])).toEqual([
      ['/api/runs/r-1/reconfigure', { vars: { count: 7 } }],
      ['/api/runs/r-1/resume', {}],
    ]);
  });

  it('needs "reset first" to change the vars of a run that ran, then resets, reconfigures and resumes', async () => {
    mounted = await mount(<Composer run={withAssignment} onRun={() => {}} />);
    await openReconfigure();
    expect((mounted.root.querySelector('fieldset.composer-reconfigure-fields') as HTMLFieldSetElement).disabled).toBe(true);
    await click(mounted.byTestId('composer-reset-first'));
    expect((mounted.root.querySelector('fieldset.composer-reconfigure-fields') as HTMLFieldSetElement).disabled).toBe(false);
    await type(mounted.root.querySelector('[name="var.feature"]')!, 'light mode');
    await click(sendButton());
    await settle();
    expect(calls.filter((c) => c.method === 'POST').map((c) => [c.path, c.body])).toEqual([
      ['/api/runs/r-1/reset', {}],
      ['/api/runs/r-1/reconfigure', { vars: { feature: 'light mode' } }],
      ['/api/runs/r-1/resume', {}],
    ]);
  });

  it('drops its edits when the section is closed: a send then carries none', async () => {
    mounted = await mount(<Composer run={{ ...withAssignment, status: 'initialized', capabilities: { canResume: true, canReconfigure: true } } as unknown as RunDetail} onRun={() => {}} />);
    await openReconfigure();
    await type(mounted.root.querySelector('[name="var.feature"]')!, 'changed');
    await click(mounted.byTestId('composer-reconfigure-toggle'));
    await click(sendButton());
    await settle();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/api/runs/r-1/resume']);
    await openReconfigure();
    expect((mounted.root.querySelector('[name="var.feature"]') as HTMLInputElement).value).toBe('dark mode');
  });

  it('marks the var the daemon refused', async () => {
    answer = (c) =>
      c.path.startsWith('/api/assignments/')
        ? { status: 200, body: { assignment: { assignment: { name: 'feature', vars: specs } } } }
        : { status: 422, body: { error: { code: 'VALIDATION_FAILED', message: 'feature is too long', details: { field: 'vars.feature' } } } };
    mounted = await mount(<Composer run={{ ...withAssignment, status: 'initialized', capabilities: { canResume: true, canReconfigure: true } } as unknown as RunDetail} onRun={() => {}} />);
    await openReconfigure();
    await type(mounted.root.querySelector('[name="var.feature"]')!, 'x'.repeat(50));
    await click(sendButton());
    await settle();
    expect(mounted.byTestId('composer-error').textContent).toContain('feature is too long (vars.feature)');
    expect(mounted.root.querySelector('label.invalid')!.textContent).toContain('feature is too long');
  });
});
