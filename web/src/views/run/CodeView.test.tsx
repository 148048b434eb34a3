// @vitest-environment happy-dom
import { act } from 'preact/test-utils';
import { afterEach, describe, expect, it } from 'vitest';

import { click, mount, type Mounted } from '../../test/render';
import { CodeView } from './CodeView';

let mounted: Mounted | undefined;
afterEach(() => mounted?.unmount());

const SOURCE = '/* a comment\n   over two lines */\nconst a = 1;\nconst b = `x`;\n';

describe('CodeView', () => {
  it('numbers the lines and colours them once the lazy highlighter is in', async () => {
    mounted = await mount(<CodeView runId="r-1" path="src/a.ts" content={SOURCE} />);
    expect(mounted.byTestId('code-view').getAttribute('data-language')).toBe('typescript');
    expect(mounted.all('[data-testid="code-line-number"]').map((n) => n.textContent)).toEqual(['1', '2', '3', '4']);
    for (let i = 0; i < 50 && !mounted.root.querySelector('.hljs-keyword'); i++) await act(() => new Promise((r) => setTimeout(r, 10)));
    const rows = mounted.all('tr');
    expect(rows[2].querySelector('.hljs-keyword')?.textContent).toBe('const');
    // The comment spans two lines: each line holds its own closed span.
    expect(rows[0].querySelector('.hljs-comment')?.textContent).toBe('/* a comment');
    expect(rows[1].querySelector('.hljs-comment')?.textContent).toBe('   over two lines */');
  });

  it('picks a range with click and shift-click, and the bar ✕ drops it', async () => {
    mounted = await mount(<CodeView runId="r-1" path="src/a.ts" content={SOURCE} />);
    const numbers = mounted.all('[data-testid="code-line-number"]');
    await click(numbers[2]);
    await act(() => {
      numbers[3].dispatchEvent(new MouseEvent('click', { bubbles: true, shiftKey: true }));
    });
    expect(mounted.byTestId('review-range').textContent).toBe('src/a.ts:3-4');
    expect(mounted.all('tr.picked')).toHaveLength(2);
    await click(mounted.root.querySelector('.review-actions button.icon')!);
    expect(mounted.all('[data-testid="review-actions"]')).toHaveLength(0);
  });

  it('shows plain lines for a file without a known language', async () => {
    mounted = await mount(<CodeView runId="r-1" path="NOTES" content={'one\ntwo'} />);
    expect(mounted.byTestId('code-view').hasAttribute('data-language')).toBe(false);
    expect(mounted.all('td.code').map((c) => c.textContent)).toEqual(['one', 'two']);
  });
});
