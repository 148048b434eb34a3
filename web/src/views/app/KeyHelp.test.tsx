// @vitest-environment happy-dom
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { DEFAULT_KEYS } from '../../lib/keys';
import { loadPreferences } from '../../lib/preferences';
import { click, mount, type Mounted } from '../../test/render';
import { KeyHelp } from './KeyHelp';

let mounted: Mounted | undefined;
beforeEach(() => localStorage.clear());
afterEach(() => mounted?.unmount());

const press = (key: string) =>
  act(() => {
    window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
  });
const row = (id: string) => mounted!.root.querySelector<HTMLElement>(`[data-binding="${id}"]`)!;

describe('KeyHelp', () => {
  it('changes a key with the next key pressed, keeps it, refuses a clash and restores the defaults', async () => {
    mounted = await mount(<KeyHelp onClose={() => {}} />);
    await click(row('board.next').querySelector('[data-testid="key-change"]')!);
    expect(mounted.byTestId('key-waiting')).toBeTruthy();
    await press('k'); // the previous-run key
    expect(mounted.byTestId('key-problem').textContent).toMatch(/already does/);
    await press('e');
    expect(row('board.next').querySelector('kbd')!.textContent).toBe('e');
    expect(loadPreferences().keys['board.next']).toBe('e');

    await click(row('board.pick').querySelector('[data-testid="key-change"]')!);
    await press('Escape'); // cancels, changes nothing
    expect(mounted.all('[data-testid="key-waiting"]')).toHaveLength(0);
    expect(loadPreferences().keys['board.pick']).toBe('x');

    await click(mounted.byTestId('keys-reset'));
    expect(loadPreferences().keys).toEqual(DEFAULT_KEYS);
    expect(row('board.next').querySelector('kbd')!.textContent).toBe('j');
  });
});
