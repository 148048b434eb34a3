// @vitest-environment happy-dom
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { PREFERENCES_KEY } from '../../lib/preferences';
import { click, mount, type, type Mounted } from '../../test/render';
import { DiffTab } from './DiffTab';

const PATCH = [
  'diff --git a/src/calc.js b/src/calc.js',
  'index 1..2 100644',
  '--- a/src/calc.js',
  '+++ b/src/calc.js',
  '@@ -1,3 +1,3 @@',
  ' export function add(a, b) {',
  '-  return a+b;',
  '+  return a + b;',
  ' }',
  'diff --git a/NOTES.md b/NOTES.md',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/NOTES.md',
  '@@ -0,0 +1,2 @@',
  '+# Notes',
  '+return values',
  '',
].join('\n');

const DIFF = {
  files: [
    { path: 'src/calc.js', oldPath: null, status: 'modified', additions: 1, deletions: 1, binary: false },
    { path: 'NOTES.md', oldPath: null, status: 'untracked', additions: 2, deletions: 0, binary: false },
  ],
  patch: PATCH,
  stats: { files: 2, additions: 3, deletions: 1 },
  truncated: false,
  truncatedReason: null,
  base: { ref: 'HEAD', commit: 'abc' },
  head: { ref: null, commit: null },
};

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

let mounted: Mounted | undefined;
let calls: Array<{ url: URL; method: string; body: any }>;

beforeEach(() => {
  localStorage.clear();
  calls = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: URL | string, init: RequestInit = {}) => {
      const url = new URL(String(input));
      calls.push({ url, method: init.method ?? 'GET', body: init.body ? JSON.parse(String(init.body)) : null });
      if (url.pathname.endsWith('/workspace/diff')) {
        if (url.searchParams.get('mode') === 'run') return json(404, { error: { code: 'NOT_FOUND', message: 'no baseline', details: { reason: 'no_baseline' } } });
        return json(200, DIFF);
      }
      if (url.pathname.endsWith('/workspace/refs'))
        return json(200, {
          runId: 'r-1',
          repoRoot: '/w',
          head: { branch: 'feature', commit: 'b'.repeat(40) },
          branches: [
            { name: 'feature', commit: 'b'.repeat(40) },
            { name: 'main', commit: 'a'.repeat(40) },
          ],
          remotes: [],
          tags: [{ name: 'v1.0', commit: 'a'.repeat(40) }],
          truncated: false,
        });
      if (url.pathname.endsWith('/tasks')) return json(201, { task: { id: 'review-1' } });
      if (url.pathname.endsWith('/queued-resume-messages')) return json(201, { message: { id: 'qm_1' } });
      return json(404, { error: { code: 'NOT_FOUND', message: 'no route' } });
    }),
  );
});
afterEach(() => {
  mounted?.unmount();
  vi.unstubAllGlobals();
});

/** Lets the stubbed requests answer and the views re-render. */
async function settle() {
  for (let i = 0; i < 5; i++) await act(() => new Promise((r) => setTimeout(r, 0)));
}

async function shiftClick(el: Element) {
  await act(() => {
    el.dispatchEvent(new MouseEvent('click', { bubbles: true, shiftKey: true }));
  });
}

async function key(el: Element, k: string) {
  await act(() => {
    el.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
  });
}

describe('DiffTab', () => {
  it('falls back to the working tree and lists files with their counts and numbered lines', async () => {
    mounted = await mount(<DiffTab runId="r-1" />);
    await settle();
    expect((mounted.byTestId('diff-mode') as HTMLSelectElement).value).toBe('working-tree');
    const files = mounted.all('[data-testid="diff-file"]');
    expect(files.map((f) => f.getAttribute('data-path'))).toEqual(['src/calc.js', 'NOTES.md']);
    expect(files[0].textContent).toContain('+1');
    expect(files[0].textContent).toContain('−1');
    const calc = mounted.all('[data-testid="diff-file-view"]')[0];
    expect(calc.querySelector('table')!.classList.contains('unified')).toBe(true);
    // Git's header lines are left to the file's header; the hunk and code stay.
    expect(calc.textContent).not.toContain('index 1..2');
    const rows = Array.from(calc.querySelectorAll('tr')).map((r) => Array.from(r.children).map((c) => c.textContent));
    expect(rows).toContainEqual(['2', '', '-  return a+b;']);
    expect(rows).toContainEqual(['', '2', '+  return a + b;']);
  });

  it('shows old and new side by side when asked, and remembers it', async () => {
    mounted = await mount(<DiffTab runId="r-1" />);
    await settle();
    await click(mounted.byTestId('diff-layout-split'));
    const calc = mounted.all('[data-testid="diff-file-view"]')[0];
    expect(calc.querySelector('table')!.classList.contains('side-by-side')).toBe(true);
    const paired = Array.from(calc.querySelectorAll('tr')).find((r) => r.textContent!.includes('a+b'))!;
    expect(Array.from(paired.children).map((c) => c.textContent)).toEqual(['2', '-  return a+b;', '2', '+  return a + b;']);
    expect(JSON.parse(localStorage.getItem(PREFERENCES_KEY)!).diffLayout).toBe('split');
    mounted.unmount();
    mounted = await mount(<DiffTab runId="r-1" />);
    await settle();
    expect(mounted.all('table.diff-table.side-by-side')).toHaveLength(2);
  });

  it('searches the diff and steps through the matches', async () => {
    mounted = await mount(<DiffTab runId="r-1" />);
    await settle();
    const search = mounted.byTestId('diff-search');
    await type(search, 'RETURN');
    expect(mounted.byTestId('diff-search-count').textContent).toBe('0/3');
    expect(mounted.all('[data-testid="diff-file-view"] mark')).toHaveLength(3);
    await key(search, 'Enter');
    expect(mounted.byTestId('diff-search-count').textContent).toBe('1/3');
    expect(mounted.all('tr.hit-current')[0].textContent).toContain('return a+b;');
    await key(search, 'Enter');
    await key(search, 'Enter');
    expect(mounted.all('tr.hit-current')[0].textContent).toContain('return values');
    expect(mounted.all('[data-testid="diff-file"]')[1].classList.contains('active')).toBe(true);
    expect(mounted.all('[data-testid="diff-file"]')[1].textContent).toContain('1 found');
  });

  it('jumps between files with the buttons and the ] and [ keys', async () => {
    mounted = await mount(<DiffTab runId="r-1" />);
    await settle();
    const active = () => mounted!.all('[data-testid="diff-file"].active').map((f) => f.getAttribute('data-path'));
    await click(mounted.byTestId('diff-next-file'));
    expect(active()).toEqual(['src/calc.js']);
    await key(document.body, ']');
    expect(active()).toEqual(['NOTES.md']);
    await key(document.body, '[');
    expect(active()).toEqual(['src/calc.js']);
  });

  it('turns picked lines into a task and a queued message quoting them', async () => {
    mounted = await mount(<DiffTab runId="r-1" />);
    await settle();
    const numbers = mounted.all('[data-testid="diff-file-view"]')[0].querySelectorAll('[data-testid="diff-line-number"]');
    await click(numbers[0]); // the context line's old number
    await shiftClick(numbers[5]); // the addition's new number
    expect(mounted.byTestId('review-range').textContent).toBe('src/calc.js:1-2');
    await click(mounted.byTestId('review-create-task'));
    await settle();
    const task = calls.find((c) => c.method === 'POST' && c.url.pathname.endsWith('/tasks'))!;
    expect(task.url.pathname).toBe('/api/runs/r-1/tasks');
    expect(task.body).toEqual({
      title: 'Review src/calc.js:1-2',
      body: 'src/calc.js:1-2\n\n```diff\n export function add(a, b) {\n-  return a+b;\n+  return a + b;\n```\n',
    });
    expect(mounted.byTestId('review-result').textContent).toContain('review-1');
    await type(mounted.byTestId('review-note'), 'Keep the spacing.');
    await click(mounted.byTestId('review-queue-message'));
    await settle();
    const queued = calls.find((c) => c.url.pathname.endsWith('/queued-resume-messages'))!;
    expect(queued.body.text).toBe(`Keep the spacing.\n\n${task.body.body}`);
  });

  it('asks for two refs in branch mode and sends them', async () => {
    mounted = await mount(<DiffTab runId="r-1" />);
    await settle();
    const mode = mounted.byTestId('diff-mode') as HTMLSelectElement;
    await act(() => {
      mode.value = 'branch';
      mode.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(mounted.all('[data-testid="diff-file"]')).toHaveLength(0);
    await settle();
    // The repository's refs are offered in the fields' suggestions.
    const offered = mounted.all('#diff-refs option').map((o) => o.getAttribute('value'));
    expect(offered).toEqual(['HEAD', 'feature', 'main', 'refs/agentry/runs/r-1/base', 'v1.0']);
    await type(mounted.byTestId('diff-base'), 'main');
    await type(mounted.byTestId('diff-head'), 'feature');
    await act(() => {
      mounted!.byTestId('diff-branch-refs').dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await settle();
    const last = calls.filter((c) => c.url.pathname.endsWith('/workspace/diff')).pop()!;
    expect(Object.fromEntries(last.url.searchParams)).toEqual({ mode: 'branch', base: 'main', head: 'feature', comparison: 'merge-base' });
    expect(mounted.all('[data-testid="diff-file"]')).toHaveLength(2);
  });
});
